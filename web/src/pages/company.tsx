import type { ComponentChildren } from 'preact';
import type { CompanyProfile, EarlySignal, Financials, PeriodFinancials, Provenance } from '../../../shared/companies/profile';
import { api } from '../api';
import { PageTitle, Status, useAsync } from '../components';
import { when } from '../format';
import { href } from '../router';
import { TableScroll } from '../table-scroll';

const SOURCES: Record<string, string> = {
  'companies-house-basic-company-data': 'Companies House basic company data',
  'cro-companies': 'CRO companies file',
  'companies-house-streaming-api': 'Companies House Streaming API',
  'bureau-local-stream': 'Local register streams (demo activity, not the register)',
  'companies-house-accounts-data': 'Companies House accounts data',
  'bureau-local-accounts': 'Local demo accounts (not the register)',
};

const FIGURES: ReadonlyArray<readonly [keyof PeriodFinancials, string]> = [
  ['turnover', 'Turnover'],
  ['profitOrLoss', 'Profit or loss'],
  ['netAssets', 'Net assets'],
  ['totalAssetsLessCurrentLiabilities', 'Total assets less current liabilities'],
  ['currentAssets', 'Current assets'],
  ['creditorsDueWithinOneYear', 'Creditors due within a year'],
  ['cash', 'Cash'],
  ['fixedAssets', 'Fixed assets'],
  ['employees', 'Employees'],
];

const day = (iso: string | null | undefined) =>
  iso
    ? new Date(`${iso.slice(0, 10)}T00:00:00Z`).toLocaleDateString('en-GB', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      })
    : '—';
const words = (code: string | null | undefined) => (code ? code.replace(/[_-]/g, ' ') : '—');
const money = (amount: { amountMinor: number; currency: string } | null | undefined) =>
  amount
    ? new Intl.NumberFormat('en-GB', { style: 'currency', currency: amount.currency, maximumFractionDigits: 0 }).format(
        amount.amountMinor / 100,
      )
    : '—';
const yesNo = (flag: boolean, yes: string, no: string) => <span class={`badge ${flag ? 'bad' : 'good'}`}>{flag ? yes : no}</span>;

const RISK_TONE: Record<string, string> = { Low: 'good', Moderate: 'info', High: 'warn', Severe: 'bad' };
const SEVERITY_TONE: Record<string, string> = { info: 'info', warning: 'warn', critical: 'bad' };
const STATE_TONE: Record<string, string> = { active: 'bad', superseded: 'info', expired: '' };

/** Where a block's figures come from: the register file or feed, its date, the rule that derived them. */
function SourceLine({ provenance, dataSource }: { provenance: Provenance | undefined; dataSource: string }) {
  if (!provenance) {
    return <p class="source">Source: {dataSource === 'demo' ? 'demo values derived by Bureau, not register facts' : 'not recorded'}.</p>;
  }
  return (
    <p class="source">
      Source: {SOURCES[provenance.source] ?? provenance.source}, as of {day(provenance.asOf)} · rule <code>{provenance.rule}</code>
    </p>
  );
}

function Block({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="block" aria-labelledby={`block-${id}`}>
      <h2 id={`block-${id}`}>{title}</h2>
      {children}
    </section>
  );
}

function Facts({ rows }: { rows: ReadonlyArray<readonly [string, ComponentChildren]> }) {
  return <dl class="facts">{rows.map(([term, value]) => [<dt key={`${term}-t`}>{term}</dt>, <dd key={`${term}-d`}>{value}</dd>])}</dl>;
}

function FinancialsTable({ financials }: { financials: Financials }) {
  const figure = (period: PeriodFinancials | undefined, name: keyof PeriodFinancials) => {
    const value = period?.[name];
    if (value === undefined || value === null) return '—';
    return typeof value === 'object' ? money(value) : String(value);
  };
  const { group } = financials;
  const shown = FIGURES.filter(
    ([name]) => financials[name] !== undefined || financials.prior?.[name] !== undefined || group?.[name] !== undefined,
  );
  return (
    <>
      <TableScroll label="Filed accounts figures">
        <table>
          <caption>
            Filed accounts ({words(financials.accountsType)}), period ending {day(financials.periodEnd)}
            {group ? ": the company's own figures, and its group's" : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Figure</th>
              <th scope="col">Period to {day(financials.periodEnd)}</th>
              <th scope="col">{financials.prior ? `Period to ${day(financials.prior.periodEnd)}` : 'Prior period'}</th>
              {group ? <th scope="col">The group (consolidated), period to {day(group.periodEnd)}</th> : null}
            </tr>
          </thead>
          <tbody>
            {shown.map(([name, label]) => (
              <tr key={name}>
                <th scope="row">{label}</th>
                <td>{figure(financials, name)}</td>
                <td>{figure(financials.prior, name)}</td>
                {group ? <td>{figure(group, name)}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p class="source">
        Source: {SOURCES[financials.provenance.source] ?? financials.provenance.source}, {financials.provenance.archive} (
        {financials.provenance.format})
      </p>
    </>
  );
}

/** Active first would hide when things happened: the history reads newest first, whatever the state. */
function SignalHistory({ signals }: { signals: readonly EarlySignal[] }) {
  const ordered = [...signals].sort((a, b) => b.detectedAt.localeCompare(a.detectedAt) || b.updatedAt.localeCompare(a.updatedAt));
  const active = signals.filter((signal) => signal.state === 'active').length;
  if (ordered.length === 0) return <p>No early signals have been seen for this company.</p>;
  return (
    <TableScroll label="Early signal history">
      <table>
        <caption>
          Signal history: {active} active of {ordered.length}, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Signal</th>
            <th scope="col">Severity</th>
            <th scope="col">State</th>
            <th scope="col">Detected</th>
            <th scope="col">Last updated</th>
          </tr>
        </thead>
        <tbody>
          {ordered.map((signal) => (
            <tr key={signal.id}>
              <td>
                <strong>{words(signal.kind)}</strong>
                <span class="meta"> {signal.summary}</span>
              </td>
              <td>
                <span class={`badge ${SEVERITY_TONE[signal.severity] ?? ''}`}>{signal.severity}</span>
              </td>
              <td>
                <span class={`badge ${STATE_TONE[signal.state] ?? ''}`}>{signal.state}</span>
              </td>
              <td class="nowrap">{when(signal.detectedAt)}</td>
              <td class="nowrap">{when(signal.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

export function CompanyPage({ jurisdiction, number }: { jurisdiction: string; number: string }) {
  const profile = useAsync(() => api.company(jurisdiction, number) as Promise<unknown> as Promise<CompanyProfile>, [jurisdiction, number]);
  if (!profile.value) return <Status message={profile.error ?? 'Loading…'} tone={profile.error ? 'error' : 'info'} />;
  const company = profile.value;
  const { overview, tradingStatus, filingBehaviour, riskOfFailure: risk, creditCapacity: credit, earlySignals } = company;
  return (
    <div class="company-page">
      <p>
        <a href={href('portfolio')}>Portfolio</a>
      </p>
      <PageTitle>{company.name}</PageTitle>
      <p class="meta">
        {company.jurisdiction} {company.companyNumber} · profile version {company.version} · last changed {when(company.updatedAt)}
      </p>

      <Block id="overview" title="Overview">
        <Facts
          rows={[
            ['Company type', `${words(overview.companyType)}${overview.companySubtype ? ` (${words(overview.companySubtype)})` : ''}`],
            ['Incorporated', day(overview.incorporatedOn)],
            ...(overview.dissolvedOn ? [['Dissolved', day(overview.dissolvedOn)] as const] : []),
            ['Registered office', overview.registeredOffice ?? '—'],
            [company.jurisdiction === 'GB' ? 'SIC codes' : 'NACE codes', overview.sicCodes.join(', ') || '—'],
            ['Size', overview.sizeBand ?? 'not known'],
            ['Employees', overview.employeesBand ?? '—'],
            ['Maturity', overview.maturity],
            ['Complexity', overview.complexity],
            ...(overview.previousNames?.length
              ? [
                  [
                    'Former names',
                    overview.previousNames.map((former) => `${former.name} (to ${day(former.changedOn)})`).join('; '),
                  ] as const,
                ]
              : []),
          ]}
        />
        <SourceLine provenance={overview.provenance} dataSource={company.dataSource} />
        {overview.financials ? (
          <FinancialsTable financials={overview.financials} />
        ) : (
          <p>No filed accounts have been read for this company.</p>
        )}
      </Block>

      <Block id="tradingStatus" title="Trading status">
        <p>
          <span class={`badge ${tradingStatus.status === 'active' ? 'good' : tradingStatus.status === 'dormant' ? 'info' : 'bad'}`}>
            {words(tradingStatus.status)}
          </span>{' '}
          The register says "{tradingStatus.registerStatus}"{tradingStatus.since ? `, since ${day(tradingStatus.since)}` : ''}.
        </p>
        <SourceLine provenance={tradingStatus.provenance} dataSource={company.dataSource} />
      </Block>

      <Block id="filingBehaviour" title="Filing behaviour">
        <Facts
          rows={[
            ['Consistency', words(filingBehaviour.consistency)],
            ['Accounts', yesNo(filingBehaviour.accountsOverdue, 'overdue', 'up to date')],
            ['Confirmation statement', yesNo(filingBehaviour.confirmationStatementOverdue, 'overdue', 'up to date')],
            ['Last accounts filed', day(filingBehaviour.lastAccountsFiledOn)],
            ...(filingBehaviour.lastAccountsMadeUpTo !== undefined
              ? [['Made up to', day(filingBehaviour.lastAccountsMadeUpTo)] as const]
              : []),
            ['Next accounts due', day(filingBehaviour.nextAccountsDueOn)],
            ['Last confirmation statement', day(filingBehaviour.lastConfirmationStatementOn)],
            ['Late filings in 5 years', String(filingBehaviour.lateFilingsLast5Years)],
          ]}
        />
        <SourceLine provenance={filingBehaviour.provenance} dataSource={company.dataSource} />
      </Block>

      <Block id="riskOfFailure" title="Risk of failure">
        <p>
          <span class={`badge ${RISK_TONE[risk.level] ?? ''}`}>{risk.level}</span> score {risk.score} of 100, assessed{' '}
          {day(risk.assessedOn)}.{' '}
          {risk.previous
            ? `${risk.score > risk.previous.score ? 'Up' : 'Down'} from ${risk.previous.score} (${risk.previous.level}) on ${day(risk.previous.replacedAt)}.`
            : 'The score has not changed since Bureau first held the company.'}
        </p>
        <h3>What drives it</h3>
        <ul class="plain">
          {risk.drivers.map((driver) => (
            <li key={driver}>{driver}</li>
          ))}
        </ul>
        <SourceLine provenance={risk.provenance} dataSource={company.dataSource} />
      </Block>

      <Block id="creditCapacity" title="Credit capacity">
        {credit.creditLimit ? (
          <Facts
            rows={[
              ['Credit limit', money(credit.creditLimit)],
              ['Trade limit', money(credit.tradeLimit)],
              ['Assessed', day(credit.assessedOn)],
            ]}
          />
        ) : (
          <p>
            <span class="badge warn">No limit</span> {credit.reason?.message ?? 'No limit could be set.'}{' '}
            <span class="meta">
              ({words(credit.reason?.code)}, assessed {day(credit.assessedOn)})
            </span>
          </p>
        )}
        {credit.drivers?.length ? (
          <>
            <h3>How the limit was reached</h3>
            <ul class="plain">
              {credit.drivers.map((driver) => (
                <li key={driver}>{driver}</li>
              ))}
            </ul>
          </>
        ) : null}
        <SourceLine provenance={credit.provenance} dataSource={company.dataSource} />
      </Block>

      <Block id="earlySignals" title="Early signals">
        <SignalHistory signals={earlySignals.signals} />
        <SourceLine provenance={earlySignals.provenance} dataSource={company.dataSource} />
      </Block>
    </div>
  );
}

import { Fragment } from 'preact';
import { api } from '../api';
import { PageTitle, Status, useAsync } from '../components';
import { href } from '../router';

const BLOCKS: ReadonlyArray<readonly [string, string]> = [
  ['overview', 'Overview'],
  ['tradingStatus', 'Trading status'],
  ['filingBehaviour', 'Filing behaviour'],
  ['riskOfFailure', 'Risk of failure'],
  ['creditCapacity', 'Credit capacity'],
  ['earlySignals', 'Early signals'],
];

const label = (key: string) => key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (first) => first.toUpperCase());

/** Any JSON value as nested definition lists: readable without knowing the schema. */
function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <>—</>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <>none</>;
    return (
      <ul class="plain">
        {value.map((item, index) => (
          <li key={index}>
            <Value value={item} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object') {
    return (
      <dl class="facts">
        {Object.entries(value as Record<string, unknown>).map(([key, member]) => (
          <Fragment key={key}>
            <dt>{label(key)}</dt>
            <dd>
              <Value value={member} />
            </dd>
          </Fragment>
        ))}
      </dl>
    );
  }
  return <>{String(value)}</>;
}

export function CompanyPage({ jurisdiction, number }: { jurisdiction: string; number: string }) {
  const profile = useAsync(() => api.company(jurisdiction, number), [jurisdiction, number]);
  if (!profile.value) return <Status message={profile.error ?? 'Loading…'} tone={profile.error ? 'error' : 'info'} />;
  const company = profile.value;
  return (
    <>
      <p>
        <a href={href('watches')}>Watched companies</a>
      </p>
      <PageTitle>{String(company.name ?? number)}</PageTitle>
      <p class="meta">
        {jurisdiction} {String(company.companyNumber ?? number)} · version {String(company.version ?? '')} · updated{' '}
        {String(company.updatedAt ?? '')}
      </p>
      {BLOCKS.map(([key, title]) => (
        <section key={key} aria-labelledby={`block-${key}`}>
          <h2 id={`block-${key}`}>{title}</h2>
          <Value value={company[key]} />
        </section>
      ))}
    </>
  );
}

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import type { EarlySignal, Jurisdiction, ProfileContent } from '../../shared/companies/profile';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { profileContent } from './profile-fixture';

const LEVELS = ['Low', 'Moderate', 'High', 'Severe'] as const;
const WORDS = ['ALDER', 'BRAMBLE', 'CEDAR', 'DUNLIN', 'EMBER', 'FJORD', 'GANNET', 'HAZEL', 'IBIS', 'JUNIPER', 'KESTREL', 'LARCH'];
const TRADES = ['HAULAGE', 'BAKERY', 'JOINERY', 'FOODS', 'MARINE', 'SURVEYS'];

/** One watched company of a seeded portfolio, and what the test expects of it. */
export interface PortfolioCompany {
  readonly content: ProfileContent;
  /** Days before `now` at which the profile was last written (its updatedAt). */
  readonly daysAgo: number;
  /** The risk score the company had three days before its last write, when that write moved it. */
  readonly earlierScore?: number;
}

const signal = (number: string, n: number, severity: EarlySignal['severity'], state: EarlySignal['state']): EarlySignal => ({
  id: `sig-${number}-${n}`,
  kind: severity === 'critical' ? 'insolvency_notice' : severity === 'warning' ? 'accounts_overdue' : 'officer_change',
  state,
  severity,
  summary:
    severity === 'critical'
      ? 'A winding-up petition was gazetted.'
      : severity === 'warning'
        ? 'Accounts are overdue.'
        : 'A director resigned.',
  detectedAt: '2026-10-01T09:00:00.000Z',
  updatedAt: '2026-10-02T09:00:00.000Z',
});

/**
 * `count` companies whose every column varies by index (names drawn apart from the figures, so that a
 * page in name order mixes them): risk level and score, trading status, active
 * signals of each severity (and superseded and expired ones), credit limits and null limits with a
 * reason, both registers, and last changes spread over 30 days. Company 123 is "ZEPHYR QUARRIES LTD".
 */
export function portfolioCompanies(count: number): PortfolioCompany[] {
  return Array.from({ length: count }, (_, i) => {
    const jurisdiction: Jurisdiction = i % 8 === 0 ? 'IE' : 'GB';
    const companyNumber = jurisdiction === 'IE' ? String(700_000 + i) : `9${String(i).padStart(7, '0')}`;
    const name =
      i === 123
        ? 'ZEPHYR QUARRIES LTD'
        : `${WORDS[(i * 5 + Math.floor(i / 12)) % WORDS.length]} ${TRADES[Math.floor(i / 3) % TRADES.length]} ${i} LTD`;
    const level = LEVELS[i % 4] ?? 'Low';
    const status = i % 10 === 0 ? 'liquidation' : i % 10 === 1 ? 'dormant' : i % 13 === 2 ? 'administration' : 'active';
    const base = profileContent({ jurisdiction, companyNumber, name, status, riskLevel: level });
    const currency = jurisdiction === 'GB' ? 'GBP' : 'EUR';
    const signals: EarlySignal[] =
      i % 5 === 0
        ? [signal(companyNumber, 1, 'critical', 'active'), signal(companyNumber, 2, 'warning', 'active')]
        : i % 5 === 1
          ? [signal(companyNumber, 1, 'warning', 'active'), signal(companyNumber, 2, 'critical', 'expired')]
          : i % 5 === 2
            ? [signal(companyNumber, 1, 'info', 'active'), signal(companyNumber, 2, 'warning', 'superseded')]
            : [];
    const content: ProfileContent = {
      ...base,
      tradingStatus: {
        ...base.tradingStatus,
        registerStatus:
          status === 'active'
            ? 'Active'
            : status === 'dormant'
              ? 'Active - Dormant'
              : status === 'liquidation'
                ? 'Liquidation'
                : 'In Administration',
      },
      riskOfFailure: { ...base.riskOfFailure, score: (i % 4) * 25 + (i % 23), drivers: [`${level.toLowerCase()} risk seen in filings`] },
      creditCapacity:
        i % 6 === 0
          ? {
              creditLimit: null,
              tradeLimit: null,
              reason: { code: 'no_filed_accounts', message: 'No accounts have been filed to judge a limit by.' },
              assessedOn: '2026-10-01',
            }
          : {
              creditLimit: { amountMinor: 100_000 + ((i * 7_919) % 1_000) * 10_000, currency },
              tradeLimit: { amountMinor: 50_000, currency },
              assessedOn: '2026-10-01',
            },
      earlySignals: { signals },
    };
    const score = content.riskOfFailure.score;
    // Some scores rose and some fell at the last write; the rest never moved.
    const earlierScore = i % 7 === 3 && score >= 10 ? score - 10 : i % 7 === 5 ? score + 10 : undefined;
    return { content, daysAgo: i % 30, ...(earlierScore === undefined ? {} : { earlierScore }) };
  });
}

/**
 * Saves the companies through the company store (one clock per day, so each profile's updatedAt is
 * its own) and records a watch of each for the client, as a profile fetch does.
 */
export async function seedPortfolio(
  doc: DynamoDBDocumentClient,
  names: { companies: string; watches: string },
  clientId: string,
  companies: readonly PortfolioCompany[],
  now: Date,
): Promise<void> {
  const byDay = new Map<number, ProfileContent[]>();
  const add = (daysAgo: number, content: ProfileContent) => byDay.set(daysAgo, [...(byDay.get(daysAgo) ?? []), content]);
  for (const { content, daysAgo, earlierScore } of companies) {
    if (earlierScore !== undefined) add(daysAgo + 3, { ...content, riskOfFailure: { ...content.riskOfFailure, score: earlierScore } });
  }
  for (const company of companies) add(company.daysAgo, company.content);
  // Oldest day first: a company's earlier score is written before the one that replaces it.
  for (const [daysAgo, contents] of [...byDay].sort(([a], [b]) => b - a)) {
    const store = new DynamoCompanyStore(doc, names.companies, () => new Date(now.getTime() - daysAgo * 86_400_000 - 3_600_000));
    const results = await store.saveMany(contents, { concurrency: 8 });
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
  const watches = new DynamoWatchStore(doc, names.watches);
  const at = new Date(now.getTime() - 40 * 86_400_000).toISOString();
  for (let start = 0; start < companies.length; start += 50) {
    await Promise.all(
      companies
        .slice(start, start + 50)
        .map(({ content }) => watches.recordWatch(clientId, content.jurisdiction, content.companyNumber, at)),
    );
  }
}

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { protectedRoute } from '../../shared/auth/protect';
import { DynamoNameIndex } from '../../shared/companies/dynamo-name-index';
import { nameWords, normalizeQuery } from '../../shared/companies/names';
import { DEFAULT_PAGE_LIMIT } from '../../shared/companies/request-params';
import { createSearchEndpoint } from '../../shared/companies/search-endpoint';
import { namePartition } from '../../shared/companies/search-index';
import type { HttpRequest, HttpResponse } from '../../shared/http/types';
import { companiesTable } from '../../shared/storage/tables';
import { type CompanyDataset, type CompanyRef, readDatasets, spread } from './support/companies';
import type { BenchContext } from './support/context';
import { benchRequest } from './support/http';
import { type BenchProtection, benchProtection } from './support/protection';
import { latencyTable } from './support/table';
import { IN_FLIGHT, timeConcurrent, timeInterleaved } from './support/timing';
import { misspelt, seededRandom } from './support/typos';

export const name = 'Company search (GET /v1/search) beside a bare index Query';

interface Query {
  readonly company: CompanyRef;
  readonly q: string;
}

/** What a client types: the whole name, its first word, or word starts out of order. */
const queryKinds = {
  'exact name': (company: CompanyRef) => company.name,
  'first word': (company: CompanyRef) => company.name.trim().split(/\s+/)[0] ?? '',
  'word starts, reordered': (company: CompanyRef) => {
    const words = nameWords(company.normalizedName);
    const first = words[0]?.slice(0, 4) ?? '';
    const last = words.at(-1)?.slice(0, 4) ?? '';
    return words.length > 1 ? `${last} ${first}` : first;
  },
  'company number': (company: CompanyRef) => company.companyNumber,
  // One letter changed in one word: the path that reads the vocabulary and the corrected words too.
  'one typo': (company: CompanyRef) => misspelt(company.normalizedName, 'changed', seededRandom(company.companyNumber.length)) ?? '',
} as const;
type QueryKind = keyof typeof queryKinds;

/** The endpoint's own rules: 2 to 200 characters, something left after normalization. */
const searchable = (q: string) => Array.from(q.trim()).length >= 2 && normalizeQuery(q) !== '';

function queriesOf(companies: readonly CompanyRef[], kind: QueryKind): Query[] {
  return companies.map((company) => ({ company, q: queryKinds[kind](company) })).filter((query) => searchable(query.q));
}

const searchRequest = ({ company, q }: Query, headers: Record<string, string> = {}): HttpRequest =>
  benchRequest({ path: '/v1/search', query: { q, jurisdiction: company.jurisdiction }, headers });

function expectOk(response: HttpResponse): void {
  if (response.status !== 200) throw new Error(`search answered ${response.status}: ${JSON.stringify(response.body)}`);
}

async function benchmarkDataset(context: BenchContext, dataset: CompanyDataset, protection: BenchProtection): Promise<void> {
  const loop = context.scale === 'full' ? { warmup: 50, iterations: 1000 } : { warmup: 20, iterations: 400 };
  const { doc, names } = dataset.tables;
  const table = names[companiesTable.id] as string;
  const store = new DynamoNameIndex(doc, table);
  const endpoint = createSearchEndpoint({ index: store });
  const handler = protectedRoute(protection.deps, endpoint, { startBeforeLimit: true });
  const sample = spread(
    dataset.companies.filter((company) => company.normalizedName !== ''),
    loop.iterations,
  );
  const kinds = Object.keys(queryKinds) as QueryKind[];
  const queries = Object.fromEntries(kinds.map((kind) => [kind, queriesOf(sample, kind)])) as Record<QueryKind, Query[]>;
  const pick = (list: readonly Query[], call: number) => list[call % list.length] as Query;

  // The name-index range the first-word query starts from: the smallest read search could make.
  const bareQuery = (call: number) => {
    const { company, q } = pick(queries['first word'], call);
    const prefix = normalizeQuery(q);
    return doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': namePartition(company.jurisdiction, prefix), ':prefix': prefix },
        Limit: DEFAULT_PAGE_LIMIT + 1,
      }),
    );
  };
  const viaEndpoint = (kind: QueryKind) => async (call: number) =>
    expectOk(await endpoint(searchRequest(pick(queries[kind], call)), protection.principal));
  const viaProtectedHandler = async (call: number) => {
    const kind = kinds[call % kinds.length] as QueryKind;
    expectOk(
      await handler(searchRequest(pick(queries[kind], Math.floor(call / kinds.length)), { authorization: protection.authorization })),
    );
  };

  const [baseline, ...measured] = await timeInterleaved([bareQuery, ...kinds.map(viaEndpoint), viaProtectedHandler], loop);
  context.report(
    latencyTable(`Search, ${dataset.label}: ${dataset.companies.length.toLocaleString('en-GB')} companies, page of ${DEFAULT_PAGE_LIMIT}`, [
      { label: 'baseline: Query one index partition', stats: baseline },
      ...kinds.map((kind, index) => ({ label: `endpoint, principal given: ${kind}`, stats: measured[index] as (typeof measured)[number] })),
      { label: 'handler with protection: mixed', stats: measured[kinds.length] as (typeof measured)[number] },
    ]),
  );
  const [concurrentBaseline, concurrentProtected] = await timeConcurrent([bareQuery, viaProtectedHandler], {
    warmup: IN_FLIGHT * 4,
    iterations: loop.iterations,
    inFlight: IN_FLIGHT,
  });
  context.report(
    latencyTable(`Search, ${dataset.label}, ${IN_FLIGHT} calls in flight (ops/s is the wall-clock rate)`, [
      { label: 'baseline: Query one index partition', stats: concurrentBaseline },
      { label: 'handler with protection: mixed', stats: concurrentProtected },
    ]),
  );
}

export async function run(context: BenchContext): Promise<void> {
  const protection = await benchProtection(context);
  try {
    for (const dataset of await readDatasets(context)) await benchmarkDataset(context, dataset, protection);
  } finally {
    protection.dispose();
  }
}

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { protectedRoute } from '../../shared/auth/protect';
import { DynamoProfileReader } from '../../shared/companies/dynamo-profile-reader';
import { createProfileEndpoint } from '../../shared/companies/profile-endpoint';
import { profileKey } from '../../shared/companies/search-index';
import type { HttpRequest, HttpResponse } from '../../shared/http/types';
import { companiesTable, watchesTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { type CompanyDataset, type CompanyRef, readDatasets, spread } from './support/companies';
import type { BenchContext } from './support/context';
import { benchRequest } from './support/http';
import { type BenchProtection, benchProtection } from './support/protection';
import { latencyTable } from './support/table';
import { IN_FLIGHT, timeConcurrent, timeInterleaved } from './support/timing';

export const name = 'Company profile (GET /v1/profile/{companyNumber}) beside a bare GetItem';

const profileRequest = (company: CompanyRef, headers: Record<string, string> = {}): HttpRequest =>
  benchRequest({
    path: `/v1/profile/${company.companyNumber}`,
    pathParameters: { companyNumber: company.companyNumber },
    query: { jurisdiction: company.jurisdiction },
    headers,
  });

function expectOk(response: HttpResponse): void {
  if (response.status !== 200) throw new Error(`profile answered ${response.status}: ${JSON.stringify(response.body)}`);
}

async function benchmarkDataset(context: BenchContext, dataset: CompanyDataset, protection: BenchProtection): Promise<void> {
  const loop = context.scale === 'full' ? { warmup: 50, iterations: 2000 } : { warmup: 20, iterations: 600 };
  const { doc, names } = dataset.tables;
  const table = names[companiesTable.id] as string;
  const endpoint = createProfileEndpoint({
    companies: new DynamoProfileReader(doc, table),
    watches: new DynamoWatchStore(doc, names[watchesTable.id] as string),
    clock: () => new Date(),
  });
  const handler = protectedRoute(protection.deps, endpoint, { startBeforeLimit: true });
  const sample = spread(dataset.companies, loop.iterations + loop.warmup);
  const pick = (call: number) => sample[call % sample.length] as CompanyRef;

  const bare = (call: number) => {
    const company = pick(call);
    return doc.send(new GetCommand({ TableName: table, Key: profileKey(company.jurisdiction, company.companyNumber) }));
  };
  const protectedCall = async (call: number) =>
    expectOk(await handler(profileRequest(pick(call), { authorization: protection.authorization })));
  const [baseline, principalGiven, withProtection] = await timeInterleaved(
    [bare, async (call: number) => expectOk(await endpoint(profileRequest(pick(call)), protection.principal)), protectedCall],
    loop,
  );
  context.report(
    latencyTable(`Profile, ${dataset.label}: ${dataset.companies.length.toLocaleString('en-GB')} companies`, [
      { label: 'baseline: GetItem profile', stats: baseline },
      { label: 'endpoint, principal given (read + watch)', stats: principalGiven },
      { label: 'handler with protection', stats: withProtection },
    ]),
  );
  const [concurrentBaseline, concurrentProtected] = await timeConcurrent([bare, protectedCall], {
    warmup: IN_FLIGHT * 4,
    iterations: loop.iterations,
    inFlight: IN_FLIGHT,
  });
  context.report(
    latencyTable(`Profile, ${dataset.label}, ${IN_FLIGHT} calls in flight (ops/s is the wall-clock rate)`, [
      { label: 'baseline: GetItem profile', stats: concurrentBaseline },
      { label: 'handler with protection', stats: concurrentProtected },
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

import { generateBritishCompanies } from '../../demo/company-generator';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import type { ProfileContent } from '../../shared/companies/profile';
import { type ImportRecord, importProfiles } from '../../shared/register/import/import';
import { companiesTable } from '../../shared/storage/tables';
import { batchWriteItems, storedItemsOf } from './support/companies';
import type { BenchContext } from './support/context';
import { throughputTable } from './support/table';
import { timeThroughput } from './support/timing';

export const name = 'Import of profiles (importProfiles) beside a bare BatchWriteItem';

/** Requests in flight for the baseline: importProfiles' default keeps more than this in flight, so the baseline is not starved. */
const BASELINE_CONCURRENCY = 8;
/** A seed no other benchmark uses, so these companies are new to DynamoDB Local. */
const SEED = 7;

async function* recordsOf(profiles: readonly ProfileContent[]): AsyncGenerator<ImportRecord> {
  for (const [index, profile] of profiles.entries()) yield { line: index + 1, profile };
}

async function importInto(context: BenchContext, profiles: readonly ProfileContent[]): Promise<() => Promise<unknown>> {
  const { doc, names } = await context.createTables([companiesTable]);
  const store = new DynamoCompanyStore(doc, names[companiesTable.id] as string);
  return async () => {
    const result = await importProfiles(recordsOf(profiles), store);
    if (result.created !== profiles.length)
      throw new Error(`import created ${result.created} of ${profiles.length}: ${JSON.stringify(result.errors.slice(0, 3))}`);
  };
}

async function batchWriteInto(context: BenchContext, profiles: readonly ProfileContent[]): Promise<() => Promise<unknown>> {
  const { doc, names } = await context.createTables([companiesTable]);
  const updatedAt = new Date().toISOString();
  return () =>
    batchWriteItems(
      doc,
      names[companiesTable.id] as string,
      profiles.flatMap((profile) => storedItemsOf(profile, updatedAt)),
      BASELINE_CONCURRENCY,
    );
}

export async function run(context: BenchContext): Promise<void> {
  const count = context.scale === 'full' ? 20_000 : 3_000;
  const warmupCount = 300;
  const profiles = [...generateBritishCompanies(count + warmupCount, SEED)];
  const warmup = profiles.slice(0, warmupCount);
  const measured = profiles.slice(warmupCount);

  await (await batchWriteInto(context, warmup))();
  await (await importInto(context, warmup))();

  const baseline = await timeThroughput(measured.length, await batchWriteInto(context, measured));
  const imported = await timeThroughput(measured.length, await importInto(context, measured));
  const itemsPerProfile = measured.reduce((sum, profile) => sum + storedItemsOf(profile, '').length, 0) / measured.length;
  context.report(
    throughputTable(
      `Import of ${measured.length.toLocaleString('en-GB')} generated GB profiles (${itemsPerProfile.toFixed(1)} items each: profile + name index)`,
      'profiles',
      [
        { label: `baseline: BatchWriteItem, ${BASELINE_CONCURRENCY} in flight`, result: baseline },
        { label: 'importProfiles (default options)', result: imported },
      ],
    ),
  );
}

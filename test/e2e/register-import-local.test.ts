import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveLocalTarget } from '../../cli/target';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { runCli } from '../support/cli';
import { useTestRuntime } from '../support/runtime';

const bureau = useTestRuntime();
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/register/${name}`, import.meta.url));

const cli = (...argv: string[]) => runCli(argv, () => resolveLocalTarget(bureau().runtime.dataDir));

describe('npx bureau companies import against the running local runtime', () => {
  it("runs a GB register file through the runtime's state machine, as a stack would", async () => {
    const may = await cli('companies', 'import', fixture('BasicCompanyData-2024-05-01-part1_1.csv'), '--no-progress');
    const june = await cli('companies', 'import', fixture('BasicCompanyData-2024-06-01-part1_1.csv'), '--no-progress');

    expect(may).toMatchObject({ code: 0 });
    expect(may.stdout).toContain('states: Split → Batches → Summarize → AllBatchesImported → CountSnapshotCoverage');
    expect(may.stdout).toContain('11 rows read: 11 created, 0 updated, 0 unchanged, 0 rejected');
    expect(june.stdout).toContain('SweepGoneCompanies → SummarizeWithSweep → Done');
    expect(june.stdout).toContain('1 company no longer on the register marked gone');
    expect(june.stdout).toMatch(/summary written to uploads\/\S+\/summary\.json/);
    const store = new DynamoCompanyStore(
      createDocumentClient(createDynamoClient(bureau().runtime.env)),
      bureau().runtime.tables.companies as string,
    );
    expect((await store.get('GB', '09446231'))?.dataSource).toBe('register');
  }, 120_000);
});

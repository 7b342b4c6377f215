import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TargetFactory } from '../../../cli/context';
import { localFunctionEnvironment } from '../../../local/function-environment';
import { type LocalRegisterImport, startLocalRegisterImport } from '../../../local/state-machine/register-import';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import type { ImportSummary } from '../../../shared/register/import/import-summary';
import { ImportObjects } from '../../../shared/register/import/s3-objects';
import { companiesTable } from '../../../shared/storage/tables';
import { bulkFile, CRO_HEADER, syntheticBulkRows } from '../../../tools/register-files';
import { runCli } from '../../support/cli';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { type LocalBucket, startLocalBucket } from '../../support/s3';
import { testSealer } from '../../support/sealer';

/**
 * The register import's state machine as the local runtime runs it: the synthesized definition,
 * the import's functions in their own instances, fauxqs's S3, behind the Step Functions API that
 * `bureau companies import` calls on a deployed stack.
 */
const workDir = mkdtempSync(join(tmpdir(), 'bureau-local-sfn-'));
let server: LocalBucket;
let tables: TestTables;
let stateMachine: LocalRegisterImport;
let s3: S3Client;
let sfn: SFNClient;

beforeAll(async () => {
  server = await startLocalBucket();
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  const base = {
    AWS_REGION: 'eu-west-2',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    DYNAMODB_ENDPOINT: tables.env.DYNAMODB_ENDPOINT as string,
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_TRACE_ENABLED: 'false',
  };
  stateMachine = await startLocalRegisterImport({
    s3Endpoint: server.env.S3_ENDPOINT as string,
    region: 'eu-west-2',
    root: fileURLToPath(new URL('../../../', import.meta.url)),
    // A retry waits as the definition says, a thousand times faster.
    retryDelayScale: 0.001,
    environmentOf: (spec) =>
      localFunctionEnvironment(spec, {
        base,
        tables: tables.names,
        queues: {},
        secretsManagerEndpoint: 'http://127.0.0.1:9',
        kmsEndpoint: 'http://127.0.0.1:9',
        settings: { POWERTOOLS_LOG_LEVEL: 'ERROR' },
      }),
  });
  const local = { region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  s3 = new S3Client({ ...local, endpoint: stateMachine.s3Endpoint, forcePathStyle: true });
  sfn = new SFNClient({ ...local, endpoint: stateMachine.stepFunctionsEndpoint });
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  sfn?.destroy();
  await stateMachine?.stop();
  await server?.stop();
  tables?.client.destroy();
});

const target: TargetFactory = async () => ({
  doc: tables.doc,
  tables: {
    clients: 'unused',
    companies: tables.names.companies as string,
    watches: 'unused',
    webhooks: 'unused',
    deliveries: 'unused',
    workspace: 'unused',
  },
  sealer: testSealer(),
  loopbackReceivers: false,
  registerImport: { s3, sfn, bucket: stateMachine.bucket, stateMachineArn: stateMachine.stateMachineArn, pollIntervalMs: 100 },
  description: 'the local state machine',
  close: async () => {},
});

const bureau = (...argv: string[]) => runCli(argv, target);

function file(name: string, text: string): string {
  const path = join(workDir, name);
  writeFileSync(path, text);
  return path;
}

const store = () => new DynamoCompanyStore(tables.doc, tables.names.companies as string);
const summaryOf = async (stdout: string) => {
  const key = /summary written to (\S+)/.exec(stdout)?.[1];
  if (!key) throw new Error(`no summary in ${stdout}`);
  return new ImportObjects(s3, stateMachine.bucket).readJson<ImportSummary>(key);
};
const statesOf = (stdout: string) => /states: (.*)/.exec(stdout)?.[1]?.split(' → ');

const SWEPT = [
  'Split',
  'Batches',
  'Summarize',
  'AllBatchesImported',
  'CountSnapshotCoverage',
  'JudgeCoverage',
  'SnapshotCoversRegister',
  'SweepGoneCompanies',
  'SummarizeWithSweep',
  'Done',
];
const REFUSED = SWEPT.slice(0, 7).concat('Done');

describe('bureau companies import through the local state machine', () => {
  it('imports a GB snapshot through Split, the Distributed Map, Summarize and the sweep, and prints the states and summary', async () => {
    // Arrange: 40 companies in June's whole snapshot; July lists 38 of them (95 %).
    const rows = [...syntheticBulkRows(40, 11)];
    const june = file('BasicCompanyData-2024-06-01-part1_1.csv', bulkFile(rows));
    const july = file('BasicCompanyData-2024-07-01-part1_1.csv', bulkFile(rows.slice(0, 38)));

    // Act
    const first = await bureau('companies', 'import', june, '--no-progress');
    const second = await bureau('companies', 'import', july, '--no-progress');

    // Assess
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('Import of BasicCompanyData-2024-06-01-part1_1.csv: SUCCEEDED');
    expect(statesOf(first.stdout)).toEqual(SWEPT);
    expect(first.stdout).toContain('40 rows read: 40 created, 0 updated, 0 unchanged, 0 rejected');
    expect(await summaryOf(first.stdout)).toMatchObject({
      jurisdiction: 'GB',
      wholeSnapshot: true,
      records: 40,
      batches: { total: 1, succeeded: 1, failed: 0 },
      created: 40,
      sweep: { gone: 0, failed: 0 },
      sweepGuard: { listed: 40, unlisted: 0, allowed: true },
    });
    expect((await store().get('GB', '31000000'))?.tradingStatus.status).not.toBe('removed');

    expect(second).toMatchObject({ code: 0 });
    expect(statesOf(second.stdout)).toEqual(SWEPT);
    expect(second.stdout).toContain('2 companies no longer on the register marked gone');
    expect(await summaryOf(second.stdout)).toMatchObject({
      read: 38,
      created: 0,
      sweep: { gone: 2 },
      sweepGuard: { listed: 38, unlisted: 2 },
    });
    expect((await store().get('GB', '31000039'))?.tradingStatus.status).toBe('removed');
    expect((await store().get('GB', '31000000'))?.tradingStatus.status).not.toBe('removed');
  }, 120_000);

  it('refuses to sweep after a GB file cut to a tenth of its rows, says why, and sweeps when forced by name', async () => {
    // Arrange: 50 companies in, then a file of 5 of them.
    const rows = [...syntheticBulkRows(50, 12)];
    await bureau('companies', 'import', file('BasicCompanyData-2024-06-01-part1_1.csv', bulkFile(rows)), '--no-progress');
    const cut = file('BasicCompanyData-2024-08-01-part1_1.csv', bulkFile(rows.slice(0, 5)));

    // Act
    const refused = await bureau('companies', 'import', cut, '--no-progress');

    // Assess: nothing marked; the summary and the operator are told why.
    expect(refused.code).toBe(0);
    expect(statesOf(refused.stdout)).toEqual(REFUSED);
    expect(refused.stderr).toMatch(/Sweep refused: the snapshot lists 5 of the \d+ GB register profiles/);
    const summary = await summaryOf(refused.stdout);
    expect(summary.sweep).toBeUndefined();
    expect(summary.sweepGuard).toMatchObject({ allowed: false, refusedBecause: expect.stringContaining('--force-sweep GB') });
    expect((await store().get('GB', '32000049'))?.tradingStatus.status).not.toBe('removed');

    // Act: the operator says the register really lost them.
    const forced = await bureau('companies', 'import', cut, '--no-progress', '--force-sweep', 'GB');

    expect(statesOf(forced.stdout)).toEqual(SWEPT);
    expect(forced.stderr).toContain('Sweep forced');
    expect((await store().get('GB', '32000049'))?.tradingStatus.status).toBe('removed');
  }, 120_000);

  it('refuses a header-only CRO file in the Split, before anything is written, and one dated after today before it is uploaded', async () => {
    const empty = file('cro-companies-2024-06-01.csv', `${CRO_HEADER}\r\n`);
    const future = file('cro-companies-2099-01-01.csv', `${CRO_HEADER}\r\n`);
    const before = await tables.doc.send(new ScanCommand({ TableName: tables.names.companies, Select: 'COUNT' }));

    const refused = await bureau('companies', 'import', empty, '--no-progress');
    const early = await bureau('companies', 'import', future, '--no-progress');

    expect(refused.code).toBe(1);
    expect(statesOf(refused.stdout)).toEqual(['Split']);
    expect(refused.stderr).toContain('RefusedSnapshotError: cro-companies-2024-06-01.csv holds no rows');
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('dated 2099-01-01, after today');
    expect(early.stdout).not.toContain('states:');
    const after = await tables.doc.send(new ScanCommand({ TableName: tables.names.companies, Select: 'COUNT' }));
    expect(after.Count).toBe(before.Count);
  }, 60_000);

  it('refuses an execution started directly with a date after today, in its Split', async () => {
    const key = 'uploads/direct-future/cro-companies-2024-06-01.csv';
    await new ImportObjects(s3, stateMachine.bucket).put(key, `${CRO_HEADER}\r\n"1","A LIMITED"\r\n`, 'text/csv');

    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: stateMachine.stateMachineArn,
        name: 'direct-future',
        input: JSON.stringify({ key, asOf: '2099-01-01' }),
      }),
    );
    let described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    while (described.status === 'RUNNING') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    }

    expect(described).toMatchObject({ status: 'FAILED', error: 'RefusedSnapshotError', cause: expect.stringContaining('after today') });
  }, 60_000);
});

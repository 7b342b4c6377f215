import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  DescribeMapRunCommand,
  ListMapRunsCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFunctionEnvironment } from '../../../local/function-environment';
import { startLocalAccountsImport } from '../../../local/state-machine/accounts-import';
import type { LocalRegisterImport } from '../../../local/state-machine/register-import';
import { accountsSummaryKeyOf, archiveKeyOf } from '../../../shared/accounts/import/accounts-object-keys';
import type { AccountsImportSummary } from '../../../shared/accounts/import/accounts-summary';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { profileKey } from '../../../shared/companies/search-index';
import { ImportObjects } from '../../../shared/register/import/s3-objects';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { dailyAccountsFile, holdCompanies } from '../../support/filed-accounts';
import { type LocalBucket, startLocalBucket } from '../../support/s3';

/**
 * The accounts import's state machine as the local runtime runs it: the synthesized definition
 * (local/state-machine/accounts-import.asl.json), its functions in their own instances with their
 * catalogue grants, the uploads bucket in fauxqs's S3 and the companies table in DynamoDB Local.
 */
const workDir = mkdtempSync(join(tmpdir(), 'bureau-local-accounts-'));
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
  stateMachine = await startLocalAccountsImport({
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
  await holdCompanies(new DynamoCompanyStore(tables.doc, tables.names.companies as string), workDir);
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  sfn?.destroy();
  await stateMachine?.stop();
  await server?.stop();
  tables?.client.destroy();
});

async function upload(archive: string, body: Buffer): Promise<string> {
  const key = archiveKeyOf(archive);
  await s3.send(new PutObjectCommand({ Bucket: stateMachine.bucket, Key: key, Body: body }));
  return key;
}

async function run(name: string, key: string): Promise<DescribeExecutionCommandOutput> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: stateMachine.stateMachineArn, name, input: JSON.stringify({ key }) }),
  );
  for (;;) {
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (described.status !== 'RUNNING') return described;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** summary.json beside the archive: written whether the execution succeeded or failed. */
const summaryOf = (archive: string) =>
  new ImportObjects(s3, stateMachine.bucket).readJson<AccountsImportSummary>(accountsSummaryKeyOf(archiveKeyOf(archive)));

const storedItem = async (number: string) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.names.companies, Key: profileKey('GB', number) }))).Item;

const DAILY = 'Accounts_Bulk_Data-2023-03-02.zip';

describe('the accounts import through the local state machine', () => {
  it('reads a daily archive through Split, the Distributed Map and Summarize, and counts every entry', async () => {
    // Arrange: the 19 real filings and one entry that is no filing; three of the companies are held.
    const key = await upload(DAILY, readFileSync(await dailyAccountsFile(workDir, DAILY)));

    // Act
    const execution = await run('daily', key);

    // Assess
    expect(execution).toMatchObject({ status: 'SUCCEEDED' });
    expect(JSON.parse(execution.output ?? '{}').summary).toEqual({
      summaryKey: 'accounts/Accounts_Bulk_Data-2023-03-02/summary.json',
      failedItems: 0,
      filingsRead: 20,
      rejected: 1,
    });
    expect(await summaryOf(DAILY)).toMatchObject({
      archive: DAILY,
      records: 20,
      items: { total: 1, succeeded: 1, failed: 0 },
      filingsRead: 20,
      companiesUpdated: 3,
      unchanged: 0,
      notHeld: 16,
      rejected: 1,
      entriesNotRead: 0,
      rejects: [{ entryName: 'Prod224_0088_11426842_20200630.xml', reason: expect.stringMatching(/neither XHTML nor XML/) }],
      failedItems: [],
    });
    expect(await storedItem('08119445')).toMatchObject({
      version: 2,
      overview: { financials: { periodEnd: '2020-12-31', provenance: { archive: DAILY } } },
    });
    const [mapRun] = (await sfn.send(new ListMapRunsCommand({ executionArn: execution.executionArn }))).mapRuns ?? [];
    expect((await sfn.send(new DescribeMapRunCommand({ mapRunArn: mapRun?.mapRunArn }))).itemCounts).toMatchObject({
      total: 1,
      succeeded: 1,
      failed: 0,
    });
  });

  it('changes nothing when the same archive is imported again', async () => {
    const execution = await run('daily-again', archiveKeyOf(DAILY));

    expect(execution).toMatchObject({ status: 'SUCCEEDED' });
    expect(await summaryOf(DAILY)).toMatchObject({ filingsRead: 20, companiesUpdated: 0, unchanged: 3, notHeld: 16, rejected: 1 });
    expect(await storedItem('08119445')).toMatchObject({ version: 2 });
  });

  it('fails the execution when a window cannot be read after its retries, and counts its entries as not read', async () => {
    // Arrange: the first entry's local header broken, so the window that holds it cannot be read at all.
    const archive = 'Accounts_Bulk_Data-2023-03-03.zip';
    const body = readFileSync(await dailyAccountsFile(workDir, archive));
    body.write('XXXX', 0);
    const key = await upload(archive, body);

    // Act
    const execution = await run('broken', key);

    // Assess
    expect(execution).toMatchObject({ status: 'FAILED', error: 'WindowsFailed' });
    expect(await summaryOf(archive)).toMatchObject({
      records: 20,
      items: { total: 1, succeeded: 0, failed: 1 },
      filingsRead: 0,
      entriesNotRead: 20,
      failedItems: [{ first: 0, count: 20, error: 'Error', cause: expect.stringMatching(/local file header/) }],
    });
  });
});

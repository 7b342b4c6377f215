import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerImportFunctions } from '../../infra/catalogue';
import { localGrants } from '../../local/function-environment';
import { CALL_LOG_VARIABLE, LOCAL_GRANTS_VARIABLE } from '../../local/grants';
import { type RegisterStreamEmulator, startRegisterStreamEmulator } from '../../local/register-stream-emulator';
import type { ConsumeResult } from '../../shared/register/stream/consumer';
import { companiesTable, registerStreamsTable } from '../../shared/storage/tables';
import { createTestTables, type TestTables } from '../support/dynamo';
import { FakeSecretsManager } from '../support/fake-secrets-manager';
import { serveSecretsManager } from '../support/secrets-manager-server';

const KEY = 'stream-key-never-logged';
const SECRET_ID = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:StreamKey-abcdef';

let tables: TestTables;
let register: RegisterStreamEmulator;
let secrets: FakeSecretsManager;
let served: { url: string; stop(): Promise<void> };
const saved = { ...process.env };
const callLog = mkdtempSync(join(tmpdir(), 'bureau-stream-calls-'));

type Handler = (event: { stream?: string }, context: Context) => Promise<ConsumeResult>;

/**
 * A fresh instance of the function: its module loaded anew, as at a cold start, its DynamoDB calls
 * refused unless its catalogue entry grants them (as IAM would) and logged.
 */
async function coldStart(): Promise<Handler> {
  vi.resetModules();
  const { onAwsClientCreated } = await import('../../shared/aws/client-hooks');
  const { localGrantHook } = await import('../../local/grants');
  const hook = localGrantHook(process.env);
  if (!hook) throw new Error('no grants to enforce');
  onAwsClientCreated(hook);
  return (await import('../../functions/register-stream/handler')).handler as unknown as Handler;
}

/** Lambda's context for an invocation that may run `remainingMs` more. */
function context(requestId: string, remainingMs: number): Context {
  const end = Date.now() + remainingMs;
  return {
    awsRequestId: requestId,
    functionName: 'registerStream',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-2:123456789012:function:registerStream',
    memoryLimitInMB: '256',
    logGroupName: '/aws/lambda/registerStream',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => end - Date.now(),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

function company(number: string): number {
  return register.publish('companies', {
    resource_kind: 'company-profile',
    resource_uri: `/company/${number}`,
    resource_id: number,
    data: { company_number: number, company_name: `COMPANY ${number} LIMITED`, company_status: 'active', type: 'ltd' },
  });
}

const checkpointOf = async (stream: string) =>
  (
    await tables.doc.send(
      new GetCommand({
        TableName: tables.names[registerStreamsTable.id],
        Key: { pk: `STREAM#${stream}`, sk: 'CHECKPOINT' },
        ConsistentRead: true,
      }),
    )
  ).Item?.timepoint as number | undefined;

beforeAll(async () => {
  tables = await createTestTables([companiesTable, registerStreamsTable]);
  register = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 200 });
  secrets = new FakeSecretsManager(SECRET_ID);
  served = await serveSecretsManager(secrets);
  Object.assign(process.env, tables.env, {
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    SECRETS_MANAGER_ENDPOINT: served.url,
    STREAM_KEY_SECRET_ID: SECRET_ID,
    // The shortest handover the function accepts, so a run lasts seconds.
    STREAM_HANDOVER_SECONDS: '5',
    STREAM_NAMES: 'companies,filings',
    STREAM_BASE_URL: register.url,
    [LOCAL_GRANTS_VARIABLE]: JSON.stringify(
      localGrants(registerImportFunctions.find((spec) => spec.id === 'registerStream') as never, { tables: tables.names, queues: {} }),
    ),
    [CALL_LOG_VARIABLE]: callLog,
    // Written as EMF to stdout, where the handover test reads them.
    POWERTOOLS_METRICS_DISABLED: 'false',
    POWERTOOLS_TRACE_ENABLED: 'false',
  });
  // Read from the stream's first event on, as after a bulk snapshot whose timepoint is known.
  await tables.doc.send(
    new PutCommand({
      TableName: tables.names[registerStreamsTable.id],
      Item: { pk: 'STREAM#companies', sk: 'CHECKPOINT', timepoint: 0, publishedAt: 'seeded', updatedAt: new Date().toISOString() },
    }),
  );
});

afterAll(async () => {
  process.env = saved;
  await register?.stop();
  await served?.stop();
  tables?.client.destroy();
  rmSync(callLog, { recursive: true, force: true });
});

describe('the stream function', () => {
  it('refuses to start while the secret holds no key, and reads it on the next invocation once it is put', async () => {
    const handler = await coldStart();

    await expect(handler({ stream: 'companies' }, context('no-key', 6_000))).rejects.toThrow(
      'holds no key: put one as docs/deploy.md says',
    );
    secrets.seed('v1', KEY, ['AWSCURRENT']);
    const run = await handler({ stream: 'filings' }, context('key-put', 6_000));

    expect(run).toMatchObject({ stream: 'filings', stoppedBecause: 'deadline' });
  }, 20_000);

  it('hands a stream from one run to the next, overlapping as the schedule does: one connection at a time, no event missed', async () => {
    const handler = await coldStart();
    const before = register.connections.length;
    const reads = () => secrets.calls.filter((call) => call === 'GetSecretValueCommand').length;
    const readsBefore = reads();
    let most = 0;
    const sampling = setInterval(() => {
      most = Math.max(most, register.openConnections('companies'));
    }, 20);
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      return write(chunk as string, ...(rest as []));
    });
    try {
      for (const number of ['00000001', '00000002', '00000003']) company(number);
      // Run one may read for 3 s; run two starts 2 s in and waits on the lease until run one lets go.
      const first = handler({ stream: 'companies' }, context('run-1', 8_000));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      company('00000004');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const second = handler({ stream: 'companies' }, context('run-2', 8_000));
      const one = await first;
      const handedOverAt = Date.now();
      const published = [company('00000005'), company('00000006')];
      const two = await second;

      expect(one).toMatchObject({ stoppedBecause: 'deadline', checkpoint: 4 });
      expect(two).toMatchObject({ stoppedBecause: 'deadline', checkpoint: published[1] });
      expect(await checkpointOf('companies')).toBe(published[1]);
      // Run two asked for the event after run one's last: nothing between them was skipped or read twice.
      expect(register.connections.slice(before).map((connection) => connection.timepoint)).toEqual([1, 5]);
      expect(most).toBe(1);
      // The successor was polling the lease: it connected within a poll (1 s) and a handshake of the release.
      const reconnectedAt = register.connections.slice(before)[1]?.at ?? Number.POSITIVE_INFINITY;
      expect(reconnectedAt - handedOverAt).toBeLessThan(1_500);
      // One instance served both runs here (on AWS, overlapping runs are two): it read the key once.
      expect(reads() - readsBefore).toBe(1);
      expect(written.join('')).not.toContain(KEY);
      // Every call it sent was one its catalogue entry grants.
      const calls = readdirSync(callLog).flatMap((file) =>
        readFileSync(join(callLog, file), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { allowed: boolean; resource: string; action: string }),
      );
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter((call) => !call.allowed)).toEqual([]);
      // Its metrics: per stream (lag, events applied or skipped), and the events read, with no stream dimension.
      const emf = written
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.includes('"_aws"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const stream = emf.filter((line) => line.Stream === 'companies');
      expect(stream.some((line) => typeof line.StreamLag === 'number' || Array.isArray(line.StreamLag))).toBe(true);
      expect(stream.some((line) => 'StreamEventsSkipped' in line || 'StreamEventsApplied' in line)).toBe(true);
      const read = emf.filter((line) => 'StreamEventsRead' in line);
      expect(read.every((line) => !('Stream' in line))).toBe(true);
      expect(read.flatMap((line) => [line.StreamEventsRead].flat() as number[]).reduce((a, b) => a + b, 0)).toBe(6);
    } finally {
      clearInterval(sampling);
      spy.mockRestore();
    }
  }, 30_000);

  it('stops a run at once when Companies House refuses the key, and reads the key again for the next run', async () => {
    const handler = await coldStart();
    secrets.seed('v2', 'a-revoked-key', ['AWSCURRENT']);
    const started = Date.now();

    await expect(handler({ stream: 'filings' }, context('refused', 20_000))).rejects.toThrow(
      'Companies House refused the stream key on the filings stream',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    secrets.seed('v3', KEY, ['AWSCURRENT']);
    expect(await handler({ stream: 'filings' }, context('renewed', 6_000))).toMatchObject({ stoppedBecause: 'deadline' });
  }, 30_000);

  it('refuses a stream the stage does not consume', async () => {
    const handler = await coldStart();

    await expect(handler({ stream: 'officers' }, context('officers', 6_000))).rejects.toThrow(
      'No scheduled stream "officers": this stage consumes companies, filings',
    );
    await expect(handler({}, context('none', 6_000))).rejects.toThrow('No scheduled stream ""');
  });
});

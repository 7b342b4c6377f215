import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLocalTarget } from '../../cli/target';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import type { CompanyProfile } from '../../shared/companies/profile';
import { importProfiles, openImportFile } from '../../shared/register/import/import';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { runCli } from '../support/cli';
import { useTestRuntime } from '../support/runtime';
import { type ReceivedDelivery, startWebhookReceiver, untilQuiet, verifiedEvent, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * `bureau streams replay`: a recording in the register's wire format, published into the running
 * runtime's streams, applied by its consumers, and turned into webhooks only where the register
 * told something new.
 */
const bureau = useTestRuntime();
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/register/${name}`, import.meta.url));
const RECORDING = fixture('streams/june-2024-acme-old-mill.jsonl');
let receiver: WebhookReceiver;
let signingSecret: string;
let call: (path: string, init?: RequestInit) => Promise<Response>;

const cli = (...argv: string[]) => runCli(argv, () => resolveLocalTarget(bureau().runtime.dataDir));

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const store = new DynamoCompanyStore(
    createDocumentClient(createDynamoClient(bureau().runtime.env)),
    bureau().runtime.tables.companies as string,
  );
  // As the README's walk-through: May's snapshot, then June's, then the recording of the days after.
  for (const month of ['05', '06']) {
    const snapshot = await openImportFile(fixture(`BasicCompanyData-2024-${month}-01-part1_1.csv`));
    expect(await importProfiles(snapshot.records, store)).toMatchObject({ rejected: 0 });
  }
  const token = await bureau().fetchToken();
  call = (path, init = {}) =>
    fetch(`${bureau().baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  for (const company of ['09446231', '01234567']) expect((await call(`/v1/profile/${company}?jurisdiction=GB`)).status).toBe(200);
  const subscribed = await call('/v1/webhooks', {
    method: 'POST',
    body: JSON.stringify({ name: 'Replay', url: `${receiver.url}/replay` }),
  });
  signingSecret = ((await subscribed.json()) as { signingSecret: string }).signingSecret;
});

afterAll(async () => {
  await receiver?.stop();
});

/** The early signals delivered, as "<company> <kind> <state>", read from each verified event's idempotency key. */
async function signalsDelivered(deliveries: readonly ReceivedDelivery[]): Promise<string[]> {
  const keys = await Promise.all(deliveries.map(async (delivery) => (await verifiedEvent(delivery, signingSecret)).idempotencyKey));
  return keys
    .filter((key) => key.startsWith('early_signal:'))
    .map((key) => {
      const [, , company, id, state] = key.split(':');
      return `${company} ${(id ?? '').replace(/-\d{4}-\d{2}-\d{2}$/, '')} ${state}`;
    })
    .sort();
}

const replayDeliveries = () => receiver.deliveries.filter((delivery) => delivery.path === '/replay');

const quiet = () => untilQuiet(receiver.deliveries, 3_000);

describe('bureau streams replay', () => {
  it('applies a recording line by line and alerts only what the register newly told', async () => {
    const replayed = await cli('streams', 'replay', RECORDING, '--json');

    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    const summary = JSON.parse(replayed.stdout) as { lines: Array<{ line: number; outcome: string }> } & Record<string, unknown>;
    expect(summary).toMatchObject({ published: 11, applied: 6, unchanged: 3, skipped: 2, setAside: 0, refused: [], renumbered: 0 });
    expect(summary.lines.map((line) => `${line.line}:${line.outcome}`)).toEqual([
      // An appointment of 2015 first told, then republished: remembered, nothing announced.
      '1:unchanged',
      '2:unchanged',
      // The office as the API splits it (premises "12", "Foundry Lane") is the office the file joined.
      '3:unchanged',
      '4:applied',
      // A deletion, and an officer of a company Bureau does not hold.
      '5:skipped',
      '6:applied',
      // The overdue accounts delivered late, then the profile that shows them.
      '7:applied',
      '8:applied',
      '9:applied',
      '10:applied',
      '11:skipped',
    ]);
    await expect
      .poll(async () => (await signalsDelivered(replayDeliveries())).length, { timeout: 60_000, interval: 200 })
      .toBeGreaterThanOrEqual(4);
    await quiet();
    expect(await signalsDelivered(replayDeliveries())).toEqual([
      '01234567 members_voluntary_liquidation active',
      '09446231 accounts_overdue expired',
      '09446231 charge_registered active',
      '09446231 director_appointed active',
    ]);
    const acme = (await (await call('/v1/profile/09446231?jurisdiction=GB')).json()) as CompanyProfile;
    expect(acme.filingBehaviour.provenance?.facts['stream.filings.late']).toBe('accounts:2024-05-31');
    const oldMill = (await (await call('/v1/profile/01234567?jurisdiction=GB')).json()) as CompanyProfile;
    expect(oldMill.tradingStatus.status).toBe('liquidation');
    expect(oldMill.riskOfFailure.level).not.toBe('Severe');
    expect(oldMill.tradingStatus.provenance?.source).toBe('bureau-local-stream');
  }, 90_000);

  it('replays the same recording again as new positions of the streams, changing nothing', async () => {
    const before = receiver.deliveries.length;

    const again = await cli('streams', 'replay', RECORDING);

    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Published 11 line(s)');
    expect(again.stdout).toContain('0 applied');
    expect(again.stdout).toContain('11 line(s) were renumbered');
    await quiet();
    expect(receiver.deliveries.length).toBe(before);
  }, 90_000);

  it('refuses, by line, what belongs to no stream and publishes the rest', async () => {
    const file = join(bureau().runtime.dataDir, 'odd.jsonl');
    const good = JSON.stringify({
      resource_kind: 'company-profile',
      resource_uri: '/company/99999998',
      resource_id: '99999998',
      data: { company_number: '99999998' },
      event: { timepoint: 1, published_at: '2024-05-21T08:00:00', type: 'changed' },
    });
    writeFileSync(file, ['{not json', JSON.stringify({ resource_kind: 'company-gossip', data: {} }), '', good].join('\n'));

    const result = await cli('streams', 'replay', file);

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Published 1 line(s)');
    expect(result.stdout).toContain('line 1 refused: not JSON');
    expect(result.stdout).toContain('line 2 refused: resource_kind "company-gossip" belongs to no stream');
    expect(result.stderr).toContain('2 line(s) refused');
  }, 60_000);
});

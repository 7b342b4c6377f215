import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLocalTarget } from '../../cli/target';
import { runCli } from '../support/cli';
import { ACCOUNTS_FIXTURES, dailyAccountsFile, HELD_SNAPSHOT } from '../support/filed-accounts';
import { useTestRuntime } from '../support/runtime';
import { startWebhookReceiver, untilQuiet, verifiedEvent, type WebhookReceiver } from '../support/webhook-receiver';

/** New filed accounts for a watched company: its figures change its profile, and the changes go out as webhooks. */
const bureau = useTestRuntime();
const workDir = mkdtempSync(join(tmpdir(), 'bureau-accounts-e2e-'));
let receiver: WebhookReceiver;
let signingSecret: string;
let call: (path: string, init?: RequestInit) => Promise<Response>;

const cli = (...argv: string[]) => runCli(argv, () => resolveLocalTarget(bureau().runtime.dataDir));

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // As the README's walk-through: the three companies' register rows through the register import.
  const held = await cli('companies', 'import', HELD_SNAPSHOT);
  expect(held.stdout).toContain('3 rows read: 3 created');
  const token = await bureau().fetchToken();
  call = (path, init = {}) =>
    fetch(`${bureau().baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  // Two of the three held companies are watched; the dormant one is not.
  for (const company of ['08119445', '14033910']) expect((await call(`/v1/profile/${company}?jurisdiction=GB`)).status).toBe(200);
  const subscribed = await call('/v1/webhooks', {
    method: 'POST',
    body: JSON.stringify({ name: 'Accounts', url: `${receiver.url}/accounts` }),
  });
  signingSecret = ((await subscribed.json()) as { signingSecret: string }).signingSecret;
});

afterAll(async () => {
  await receiver?.stop();
});

const delivered = async () =>
  (
    await Promise.all(
      receiver.deliveries
        .filter((delivery) => delivery.path === '/accounts')
        .map(async (delivery) => {
          const event = await verifiedEvent(delivery, signingSecret);
          return `${event.data.companyNumber} ${event.type} ${event.block}`;
        }),
    )
  ).sort();

describe('filed accounts through the running runtime', () => {
  it('announces the blocks the figures change for watched companies, and nothing when the file is read again', async () => {
    const imported = await cli('accounts', 'import', join(ACCOUNTS_FIXTURES, 'filings'));
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^filings → .*: 19 entries read in [\d.]+ s$/m);
    for (const line of ['3 companies updated (new figures)', '0 unchanged (figures already held, or newer)', '16 not held', '0 rejected']) {
      expect(imported.stdout).toContain(line);
    }
    // The changes travel the profile stream, the fan-out and the sender beside whatever else the runtime is doing.
    for (const deadline = Date.now() + 120_000; receiver.deliveries.length < 5 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await untilQuiet(receiver.deliveries, 3_000);

    expect(await delivered()).toEqual([
      '08119445 profile.changed creditCapacity',
      '08119445 profile.changed overview',
      '14033910 profile.changed creditCapacity',
      '14033910 profile.changed overview',
      '14033910 profile.changed riskOfFailure',
    ]);
    const profile = (await (await call('/v1/profile/08119445?jurisdiction=GB')).json()) as Record<string, unknown>;
    // What the README shows.
    expect(profile).toMatchObject({
      overview: {
        sizeBand: 'small',
        employeesBand: '50-249',
        financials: {
          periodEnd: '2020-12-31',
          turnover: { amountMinor: 1_351_184_400, currency: 'GBP' },
          netAssets: { amountMinor: 293_502_600, currency: 'GBP' },
          provenance: { source: 'companies-house-accounts-data', archive: 'filings', entry: 'Prod223_2911_08119445_20201231.html' },
        },
        provenance: { facts: { 'derived.overview.sizeBasis': 'statutory-test' } },
      },
      creditCapacity: {
        creditLimit: { amountMinor: 540_000_00, currency: 'GBP' },
        tradeLimit: { amountMinor: 210_000_00, currency: 'GBP' },
        drivers: ['10% of net assets of £2,935,026 at 2020-12-31', '10% of working capital of £2,562,530'],
      },
    });

    const before = receiver.deliveries.length;
    const again = await cli('accounts', 'import', await dailyAccountsFile(workDir), '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ filingsRead: 20, companiesUpdated: 0, unchanged: 3, rejected: 1 });
    await untilQuiet(receiver.deliveries, 3_000);
    expect(receiver.deliveries.length).toBe(before);
  }, 180_000);
});

import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { importProfiles, openImportFile } from '../../shared/register/import/import';
import { DynamoStreamCheckpoints } from '../../shared/register/stream/checkpoints';
import type { StreamName } from '../../shared/register/stream/stream-events';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { registerStreamsTable } from '../../shared/storage/tables';
import { useTestRuntime } from '../support/runtime';
import { type ReceivedDelivery, startWebhookReceiver, verifiedEvent, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * The live feed end to end: events published on the local register's streams, read by the
 * runtime's consumers, applied to the companies a client watches, and delivered as signed webhooks;
 * through duplicates, dropped connections, refused connections and a timepoint the register no
 * longer holds, with no webhook lost and none twice.
 */
const bureau = useTestRuntime();
let receiver: WebhookReceiver;
let signingSecret: string;
const COMPANY = '09446231';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/register/${name}`, import.meta.url));
const registerStreams = () => bureau().runtime.registerStreams;
const checkpoints = () =>
  new DynamoStreamCheckpoints(
    createDocumentClient(createDynamoClient(bureau().runtime.env)),
    bureau().runtime.tables[registerStreamsTable.id] as string,
  );

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const store = new DynamoCompanyStore(
    createDocumentClient(createDynamoClient(bureau().runtime.env)),
    bureau().runtime.tables.companies as string,
  );
  const may = await openImportFile(fixture('BasicCompanyData-2024-05-01-part1_1.csv'));
  expect(await importProfiles(may.records, store)).toMatchObject({ rejected: 0 });
  const token = await bureau().fetchToken();
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${bureau().baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  expect((await call(`/v1/profile/${COMPANY}?jurisdiction=GB`)).status).toBe(200);
  const subscribed = await call('/v1/webhooks', { method: 'POST', body: JSON.stringify({ name: 'Live', url: `${receiver.url}/live` }) });
  signingSecret = ((await subscribed.json()) as { signingSecret: string }).signingSecret;
});

afterAll(async () => {
  await receiver?.stop();
});

/** A change of registered office, as the companies stream tells it. */
function officeMove(line1: string) {
  return {
    resource_kind: 'company-profile',
    resource_uri: `/company/${COMPANY}`,
    resource_id: COMPANY,
    data: {
      company_number: COMPANY,
      company_name: 'ACME WIDGETS LIMITED',
      company_status: 'active',
      registered_office_address: { address_line_1: line1, locality: 'Sheffield', postal_code: 'S1 4PL', country: 'England' },
    },
  };
}

/** Resolves once the stream's checkpoint has passed the timepoint: the consumer applied it (or skipped it). */
async function applied(stream: StreamName, timepoint: number): Promise<void> {
  await expect
    .poll(async () => (await checkpoints().read(stream))?.timepoint ?? 0, { timeout: 30_000, interval: 100 })
    .toBeGreaterThanOrEqual(timepoint);
}

const live = (delivery: ReceivedDelivery) => delivery.path === '/live';
const keysOf = async (deliveries: readonly ReceivedDelivery[]) =>
  Promise.all(deliveries.filter(live).map(async (delivery) => (await verifiedEvent(delivery, signingSecret)).idempotencyKey));

describe('the Companies House streams, live', () => {
  it('turn a register event into a signed webhook for the client watching the company, and a duplicate into none', async () => {
    const moved = registerStreams().emulator.publish('companies', officeMove('1 New Foundry Yard'));
    // The move changes the overview; derived as of the event, other blocks may move with it.
    const [delivery] = await receiver.waitFor((received) => live(received) && received.body.includes('"block":"overview"'), 1, 30_000);
    const event = await verifiedEvent(delivery as ReceivedDelivery, signingSecret);

    expect(event).toMatchObject({ type: 'profile.changed', block: 'overview', data: { jurisdiction: 'GB', companyNumber: COMPANY } });

    const again = registerStreams().emulator.publish('companies', officeMove('1 New Foundry Yard'));
    await applied('companies', again);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(moved).toBeLessThan(again);
    const keys = await keysOf(receiver.deliveries);
    expect(new Set(keys).size).toBe(keys.length);
  }, 60_000);

  it('loses nothing and repeats nothing across dropped connections, refused connections and a timepoint the register no longer holds', async () => {
    const emulator = registerStreams().emulator;

    emulator.dropConnections('companies');
    emulator.failNextConnections('companies', 503, 1);
    const afterDrop = emulator.publish('companies', officeMove('2 Rolling Mill Court'));
    await applied('companies', afterDrop);
    const rolled = await profile();
    await receiver.waitFor((delivery) => live(delivery) && delivery.body.includes(`:overview:v${rolled.version}"`), 1, 30_000);

    // A gap: the register forgets what the consumer has not read, so its next connection is refused with 416.
    emulator.dropConnections('companies');
    const forgotten = emulator.publish('companies', officeMove('3 Crucible Row'));
    emulator.forgetThrough('companies', forgotten);
    // The consumer records the gap and reads on from the register's present; the next snapshot re-bases what it missed.
    await expect.poll(async () => (await checkpoints().gaps('companies')).length, { timeout: 60_000, interval: 200 }).toBe(1);
    await expect.poll(() => emulator.openConnections('companies'), { timeout: 60_000, interval: 100 }).toBe(1);
    const afterGap = emulator.publish('companies', officeMove('4 Cutlers Walk'));
    await applied('companies', afterGap);
    const final = await profile();
    await receiver.waitFor((delivery) => live(delivery) && delivery.body.includes(`:overview:v${final.version}"`), 1, 30_000);

    expect(rolled.overview.registeredOffice).toMatch(/Rolling Mill Court/i);
    expect(final.overview.registeredOffice).toMatch(/Cutlers Walk/i);
    // The forgotten move never reached Bureau: one version from the second move to the fourth.
    expect(final.version).toBe(rolled.version + 1);
    const keys = await keysOf(receiver.deliveries);
    expect(new Set(keys).size).toBe(keys.length);
  }, 90_000);
});

async function profile(): Promise<{ version: number; overview: { registeredOffice: string } }> {
  const token = await bureau().fetchToken();
  const response = await fetch(`${bureau().baseUrl}/v1/profile/${COMPANY}?jurisdiction=GB`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()) as { version: number; overview: { registeredOffice: string } };
}

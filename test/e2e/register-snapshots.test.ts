import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import type { CompanyProfile } from '../../shared/companies/profile';
import { sweepGoneCompanies } from '../../shared/register/import/gone-companies';
import { importProfiles, openImportFile } from '../../shared/register/import/import';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { useTestRuntime } from '../support/runtime';
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const bureau = useTestRuntime();
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.stop();
});

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/register/${name}`, import.meta.url));

/** What a subscriber can tell an event by: its type, company, and the block or signal it names. */
function eventOf(delivery: ReceivedDelivery): string {
  const envelope = JSON.parse(delivery.body) as { type: string; block: string; idempotencyKey: string; data: { companyNumber: string } };
  if (envelope.type === 'profile.changed') return `${envelope.data.companyNumber} changed ${envelope.block}`;
  const [, , , signal, state] = envelope.idempotencyKey.split(':');
  return `${envelope.data.companyNumber} ${envelope.type.replace('profile.early_signal.', 'signal ')} ${signal} ${state}`;
}

describe('a register snapshot after another', () => {
  it('raises exactly the webhooks its changes mean for the companies a client watches', async () => {
    // Arrange: May's snapshot is in, the client fetched seven companies and subscribed.
    const doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
    const tableName = bureau().runtime.tables.companies as string;
    const store = new DynamoCompanyStore(doc, tableName);
    const may = await openImportFile(fixture('BasicCompanyData-2024-05-01-part1_1.csv'));
    expect(await importProfiles(may.records, store)).toMatchObject({ created: 11, rejected: 0 });
    const token = await bureau().fetchToken();
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${bureau().baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    const watched = ['09446231', 'SC512345', '01234567', '12345678', '11111111', '07654321', 'OC400001'];
    for (const number of watched) expect((await call(`/v1/profile/${number}?jurisdiction=GB`)).status).toBe(200);
    const subscribed = await call('/v1/webhooks', {
      method: 'POST',
      body: JSON.stringify({ name: 'Register', url: `${receiver.url}/register` }),
    });
    expect(subscribed.status).toBe(201);

    // Act: June's snapshot, then the companies it no longer lists.
    const june = await openImportFile(fixture('BasicCompanyData-2024-06-01-part1_1.csv'));
    expect(await importProfiles(june.records, store)).toMatchObject({ updated: 5, unchanged: 5, rejected: 0 });
    expect(await sweepGoneCompanies({ doc, tableName, jurisdiction: 'GB', asOf: '2024-06-01' })).toMatchObject({ gone: 1 });

    // Assert
    const expected = [
      '09446231 changed filingBehaviour',
      '09446231 changed riskOfFailure',
      '09446231 changed creditCapacity',
      '09446231 signal detected accounts_overdue-2024-05-31 active',
      'SC512345 changed tradingStatus',
      'SC512345 changed filingBehaviour',
      'SC512345 changed riskOfFailure',
      'SC512345 changed creditCapacity',
      'SC512345 signal detected accounts_overdue-2024-05-31 active',
      'SC512345 signal detected strike_off_proposed-2024-06-01 active',
      '01234567 changed overview',
      '01234567 signal detected charge_registered-2024-06-01 active',
      '12345678 changed overview',
      '12345678 signal detected registered_office_changed-2024-06-01 active',
      '11111111 changed overview',
      '11111111 signal detected name_changed-2024-06-01 active',
      '07654321 changed tradingStatus',
      '07654321 changed filingBehaviour',
      '07654321 changed riskOfFailure',
      '07654321 changed creditCapacity',
      '07654321 signal updated accounts_overdue-2023-03-31 expired',
      '07654321 signal updated confirmation_statement_overdue-2023-06-15 expired',
      '07654321 signal updated strike_off_proposed-2024-05-01 expired',
      '07654321 signal detected removed-2024-06-01 active',
    ];
    // The first events of a fresh runtime wait for its functions' first start; on a busy machine, for a while.
    await receiver.waitFor((delivery) => delivery.path === '/register', expected.length, 60_000).catch(() => undefined);
    // Anything more would have come by now: the pipeline delivered the rest within the same wait.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const received = receiver.deliveries.filter((delivery) => delivery.path === '/register').map(eventOf);
    expect(received.sort()).toEqual([...expected].sort());

    const acme = (await (await call('/v1/profile/09446231?jurisdiction=GB')).json()) as CompanyProfile;
    expect(acme.dataSource).toBe('register');
    expect(acme.filingBehaviour.accountsOverdue).toBe(true);
    expect(acme.filingBehaviour.provenance?.asOf).toBe('2024-06-01');
    expect(acme.overview.provenance?.asOf).toBe('2024-05-01');

    // People still search by the former name June's file lists, and by a Welsh name with a typo in its suffix.
    const search = async (q: string) =>
      (
        (await (await call(`/v1/search?q=${encodeURIComponent(q)}&jurisdiction=GB`)).json()) as {
          items: { companyNumber: string; name: string; matchedPreviousName?: string }[];
        }
      ).items;
    expect((await search('bright ideas'))[0]).toMatchObject({
      companyNumber: '11111111',
      name: 'ZEPHYR HOLDINGS LTD',
      matchedPreviousName: 'BRIGHT IDEAS LTD',
    });
    expect((await search('cwmni bach cyfyngdig'))[0]).toMatchObject({ companyNumber: '12345678' });
  }, 120_000);
});

import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { importProfiles, openImportFile } from '../../shared/register/import/import';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { useTestRuntime } from '../support/runtime';
import { startWebhookReceiver, verifiedEvent, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * Demo accounts on the running runtime: when the local register files a watched company's accounts,
 * the accounts follow within a round, labelled `bureau-local-accounts`, and the client watching the
 * company hears of the overview they changed.
 */
const bureau = useTestRuntime();
const MAY = fileURLToPath(new URL('../fixtures/register/BasicCompanyData-2024-05-01-part1_1.csv', import.meta.url));
const ACME = '09446231';
let receiver: WebhookReceiver;
let signingSecret: string;
let store: DynamoCompanyStore;
let watchedAt: number;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  store = new DynamoCompanyStore(
    createDocumentClient(createDynamoClient(bureau().runtime.env)),
    bureau().runtime.tables.companies as string,
  );
  expect(await importProfiles((await openImportFile(MAY)).records, store)).toMatchObject({ rejected: 0 });
  const token = await bureau().fetchToken();
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${bureau().baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  const watched = await call(`/v1/profile/${ACME}?jurisdiction=GB`);
  expect(watched.status).toBe(200);
  watchedAt = ((await watched.json()) as { version: number }).version;
  const subscribed = await call('/v1/webhooks', {
    method: 'POST',
    body: JSON.stringify({ name: 'Accounts', url: `${receiver.url}/demo` }),
  });
  signingSecret = ((await subscribed.json()) as { signingSecret: string }).signingSecret;
});

afterAll(async () => {
  await receiver?.stop();
});

/** ACME's company profile as the local register publishes it when ACME files the year's accounts to 29 February 2024. */
const accountsFiled = {
  resource_kind: 'company-profile',
  resource_uri: `/company/${ACME}`,
  resource_id: ACME,
  data: {
    company_name: 'ACME WIDGETS LIMITED',
    company_number: ACME,
    company_status: 'active',
    type: 'ltd',
    date_of_creation: '2015-02-20',
    registered_office_address: { address_line_1: '12 Foundry Lane', locality: 'Sheffield', country: 'England', postal_code: 'S1 4PL' },
    sic_codes: ['25990'],
    accounts: {
      next_due: '2025-11-30',
      last_accounts: { made_up_to: '2024-02-29', period_end_on: '2024-02-29', type: 'micro-entity' },
      accounting_reference_date: { day: '28', month: '02' },
    },
  },
  event: { fields_changed: ['accounts.last_accounts.made_up_to', 'accounts.next_due'] },
};

/** The versions of the overview changes delivered for ACME, from their idempotency keys (…:overview:v<version>). */
async function overviewVersions(): Promise<number[]> {
  const versions: number[] = [];
  for (const delivery of receiver.deliveries.filter((found) => found.path === '/demo')) {
    const event = await verifiedEvent(delivery, signingSecret);
    if (event.type === 'profile.changed' && event.block === 'overview' && event.data.companyNumber === ACME)
      versions.push(Number(/:v(\d+)$/.exec(event.idempotencyKey)?.[1]));
  }
  return versions;
}

describe('demo accounts on the running runtime', () => {
  it('follow the accounts the local register files for a watched company, with a profile.changed for its overview', async () => {
    // Act: the register files, and tells the job so, as the demo activity does.
    bureau().runtime.registerStreams.emulator.publish('companies', accountsFiled);
    bureau().runtime.demoAccounts.noticeFiled(ACME, '2024-02-29');

    // Assert: within two rounds of 15 s (the first may come before the stream consumer applied the event).
    await expect
      .poll(async () => (await store.get('GB', ACME))?.overview.financials, { timeout: 45_000, interval: 250 })
      .toMatchObject({
        periodEnd: '2024-02-29',
        provenance: { source: 'bureau-local-accounts', archive: expect.stringMatching(/^Bureau_Demo_Accounts-\d{4}-\d{2}-\d{2}\.zip$/) },
      });
    const filedAt = (await store.get('GB', ACME))?.version as number;
    await expect
      .poll(async () => (await overviewVersions()).some((version) => version > watchedAt && version <= filedAt), {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(true);
  }, 150_000);
});

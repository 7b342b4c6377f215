import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDemoChange, type ChangeKind } from '../../demo/company-changes';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { eventIdOf } from '../../shared/events/client-events';
import type { WebhookEnvelope } from '../../shared/events/envelope';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { changeEvents } from '../../shared/webhooks/events';
import { profileContent } from '../support/profile-fixture';
import { useTestRuntime } from '../support/runtime';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; the assertions check their shape
type Loose = any;

const bureau = useTestRuntime();
const COMPANY = '18900001';
let receiver: WebhookReceiver;
let api: (path: string, init?: { method?: string; body?: unknown }) => Promise<{ status: number; body: Loose }>;
let store: DynamoCompanyStore;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
  const { client, secret } = await new DynamoClientRegistry(doc, bureau().runtime.tables.clients as string).create({ name: 'Filters' });
  const token = await bureau().fetchToken({ clientId: client.clientId, clientSecret: secret });
  api = async (path, init = {}) => {
    const response = await fetch(`${bureau().baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return { status: response.status, body: (await response.json()) as Loose };
  };
  store = new DynamoCompanyStore(doc, bureau().runtime.tables.companies as string);
  await store.save(profileContent({ companyNumber: COMPANY, name: 'Filtered Ltd' }));
  expect((await api(`/v1/profile/${COMPANY}?jurisdiction=GB`)).status).toBe(200);
});

afterAll(async () => {
  await receiver?.stop();
});

async function change(kind: ChangeKind): Promise<WebhookEnvelope[]> {
  const before = await store.get('GB', COMPANY);
  return changeEvents(before as NonNullable<typeof before>, await applyDemoChange(store, 'GB', COMPANY, kind));
}

const bodiesAt = (path: string) =>
  receiver.deliveries.filter((delivery) => delivery.path === path).map((delivery) => JSON.parse(delivery.body));

describe('events and filters through the local runtime', () => {
  it("deliver to each subscription only what its filters let through, and list every event in the client's events", async () => {
    const subscribe = async (name: string, path: string, filters?: unknown) => {
      const created = await api('/v1/webhooks', { method: 'POST', body: { name, url: `${receiver.url}${path}`, filters } });
      expect(created.status, name).toBe(201);
      return created.body;
    };
    await subscribe('Everything', '/all');
    const risk = await subscribe('Risk', '/risk', { blocks: ['riskOfFailure'], companies: [`gb:${COMPANY}`] });
    const signals = await subscribe('Signals', '/signals', { eventTypes: ['profile.early_signal.detected'] });
    expect(risk.filters).toEqual({ blocks: ['riskOfFailure'], companies: [`GB:${COMPANY}`] });
    expect((await api(`/v1/webhooks/${signals.id}`)).body.filters).toEqual({ eventTypes: ['profile.early_signal.detected'] });

    const raised = [...(await change('trading-status')), ...(await change('risk'))];
    const riskEvents = raised.filter((event) => event.block === 'riskOfFailure');
    expect(riskEvents.length).toBeGreaterThan(0);
    expect(raised.length).toBeGreaterThan(riskEvents.length);

    await receiver.waitFor((delivery) => delivery.path === '/all', raised.length, 30_000);
    await receiver.waitFor((delivery) => delivery.path === '/risk', riskEvents.length, 30_000);
    // What a filter leaves out is never queued; a moment for anything that was to arrive all the same.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const keys = (events: readonly WebhookEnvelope[]) => events.map((event) => event.idempotencyKey).sort();
    expect(keys(bodiesAt('/all'))).toEqual(keys(raised));
    expect(keys(bodiesAt('/risk'))).toEqual(keys(riskEvents));
    expect(bodiesAt('/signals')).toEqual([]);
    expect((await api(`/v1/webhooks/${signals.id}/deliveries`)).body.items).toEqual([]);

    // Each event is listed with the webhook's very body and an id of its own, recorded before it was queued.
    const listed = (await api(`/v1/events?jurisdiction=GB&companyNumber=${COMPANY}`)).body.items;
    expect(listed.map((item: Loose) => item.idempotencyKey).sort()).toEqual(keys(raised));
    for (const body of bodiesAt('/all')) expect(listed).toContainEqual({ id: eventIdOf(body.idempotencyKey), ...body });
    const risky = (await api(`/v1/events?jurisdiction=GB&companyNumber=${COMPANY}&block=riskOfFailure`)).body.items;
    expect(keys(risky)).toEqual(keys(riskEvents));
  });

  it("sends a test event whatever the filters, and never lists it among the client's events", async () => {
    const signals = (await api('/v1/webhooks')).body.items.find((item: Loose) => item.name === 'Signals');
    const sent = await api(`/v1/webhooks/${signals.id}/test`, { method: 'POST' });
    expect(sent.status).toBe(202);
    const [delivered] = await receiver.waitFor((delivery) => delivery.path === '/signals', 1, 30_000);
    expect(JSON.parse(delivered?.body as string)).toMatchObject({ type: 'webhook.test' });
    const listed = (await api('/v1/events?limit=100')).body.items;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((item: Loose) => item.type === 'webhook.test')).toEqual([]);
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyDemoChange } from '../../demo/company-changes';
import { functions, queueActionsOf, WEBHOOK_SECRETS_ACTIONS } from '../../infra/catalogue';
import { localFunctionFromSpec } from '../../local/functions';
import { CALL_LOG_VARIABLE, type LoggedCall, WEBHOOK_SECRETS_RESOURCE } from '../../local/grants';
import { repositoryRoot } from '../../local/paths';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { QUEUE_MAPPING_ACTIONS } from '../../shared/iam/actions';
import { createSqsClient } from '../../shared/queues/sqs';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { deliveriesTable } from '../../shared/storage/tables';
import { DynamoDeliveryLog } from '../../shared/webhooks/dynamo-delivery-log';
import { FANOUT_PAGE_SIZE } from '../../shared/webhooks/fan-out';
import { FakeSecretsManager } from '../support/fake-secrets-manager';
import { profileContent } from '../support/profile-fixture';
import { useTestRuntime } from '../support/runtime';
import { serveSecretsManager } from '../support/secrets-manager-server';
import { pointerToLatestRecord } from '../support/stream-pointer';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * Every function driven through its paths under the local runtime, which refuses any call a
 * function's catalogue grants do not allow and logs every call it makes; then, function by
 * function, what it sent must be exactly what it is granted. A refused call fails the paths that
 * make it, and this file; a grant no path uses fails this file.
 */
const callLog = mkdtempSync(join(tmpdir(), 'bureau-calls-'));
// Retries a second apart, so a failed attempt and its retry both happen here.
const bureau = useTestRuntime({ [CALL_LOG_VARIABLE]: callLog, DELIVERY_RETRY_DELAYS: Array(11).fill('1').join(',') });

let doc: DynamoDBDocumentClient;
let store: DynamoCompanyStore;
let receiver: WebhookReceiver;
let token: string;

beforeAll(async () => {
  doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
  store = new DynamoCompanyStore(doc, bureau().runtime.tables.companies as string);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.stop();
  rmSync(callLog, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; the assertions check what matters here
type Loose = any;

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: Loose }> {
  const response = await fetch(`${bureau().baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
}

const eventually = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeout = 20_000): Promise<T> =>
  vi.waitFor(
    async () => {
      const value = await read();
      if (!done(value)) throw new Error(`Still waiting for ${what}: ${JSON.stringify(value)}`);
      return value;
    },
    { timeout, interval: 200 },
  );

const COMPANY = '18300001';
const UNKNOWN_COMPANY = '18399999';

/** A subscription's attempts, once `count` are logged. */
const attemptsOf = (subscriptionId: string, count: number, deliveries = (id: string) => api(`/v1/webhooks/${id}/deliveries`)) =>
  eventually(
    () => deliveries(subscriptionId),
    (response) => (response.body?.items?.length ?? 0) >= count,
    `${count} logged attempts of ${subscriptionId}`,
  ).then((response) => response.body.items as Loose[]);

describe('every function, driven through its paths', () => {
  it('token: a token for the client credentials, and the published keys', async () => {
    token = await bureau().fetchToken();
    const jwks = await fetch(`${bureau().baseUrl}/v1/.well-known/jwks.json`);

    expect(jwks.status).toBe(200);
  });

  it('search: by name, by company number, and a typo that only the spelling vocabulary can answer', async () => {
    await store.save(profileContent({ companyNumber: COMPANY, name: 'Quillborough Instruments Ltd' }));

    const byName = await api('/v1/search?q=Quillborough&jurisdiction=GB');
    const byNumber = await api(`/v1/search?q=${COMPANY}&jurisdiction=GB`);
    const misspelt = await api('/v1/search?q=Quilborough&jurisdiction=GB');

    expect(byName.body.items[0]?.companyNumber).toBe(COMPANY);
    expect(byNumber.body.items[0]?.companyNumber).toBe(COMPANY);
    expect(misspelt.body.items[0]?.companyNumber).toBe(COMPANY);
  });

  it('profile: a known company (its watch recorded) and an unknown one (the watch undone)', async () => {
    expect((await api(`/v1/profile/${COMPANY}?jurisdiction=GB`)).status).toBe(200);
    expect((await api(`/v1/profile/${UNKNOWN_COMPANY}?jurisdiction=GB`)).status).toBe(404);
  });

  it('watches: the companies the client fetched', async () => {
    const watches = await api('/v1/watches');

    expect(watches.body.items.map((watch: Loose) => watch.companyNumber)).toContain(COMPANY);
  });

  /** A delivery that ran out of attempts, as the sender leaves it in the log: what a recovery claims. */
  const recordDeadDelivery = async (subscriptionId: string, n: number) => {
    const lastAttemptAt = new Date(Date.now() - 60_000).toISOString();
    const deliveryId = `msg_${String(n).padStart(27, 'd')}`;
    const envelope = {
      type: 'profile.changed' as const,
      apiVersion: 'v1' as const,
      occurredAt: lastAttemptAt,
      idempotencyKey: `profile.changed:GB:${COMPANY}:overview:v${n}`,
      block: 'overview' as const,
      data: { jurisdiction: 'GB' as const, companyNumber: COMPANY },
    };
    const clientId = bureau().demoClient.clientId;
    await new DynamoDeliveryLog(doc, bureau().runtime.tables[deliveriesTable.id] as string).recordMany([
      {
        delivery: { deliveryId, clientId, subscriptionId, envelope, status: 'failed', attempts: 12, lastAttemptAt },
        attempt: {
          deliveryId,
          eventType: envelope.type,
          idempotencyKey: envelope.idempotencyKey,
          attempt: 12,
          attemptedAt: lastAttemptAt,
          outcome: 'failed',
          durationMs: 3,
        },
      },
    ]);
    return new Date(Date.now() - 3_600_000).toISOString();
  };

  let subscription: { id: string };
  it('webhooks: register, list, read, change, rotate the secret, test, read the deliveries and retry one', async () => {
    const created = await api('/v1/webhooks', { method: 'POST', body: { name: 'Least privilege', url: `${receiver.url}/api` } });
    expect(created.status).toBe(201);
    subscription = created.body;
    const path = `/v1/webhooks/${subscription.id}`;

    expect((await api('/v1/webhooks')).status).toBe(200);
    expect((await api(path)).status).toBe(200);
    expect((await api(path, { method: 'PATCH', body: { name: 'Least privilege, renamed' } })).status).toBe(200);
    // Filters are written with the fan-out's copy in one transaction; GB still lets the change below through.
    expect((await api(path, { method: 'PATCH', body: { filters: { jurisdictions: ['GB'] } } })).body.filters).toEqual({
      jurisdictions: ['GB'],
    });
    expect((await api(`${path}/rotate-secret`, { method: 'POST' })).status).toBe(200);
    expect((await api(`${path}/test`, { method: 'POST' })).status).toBe(202);
    const [tested] = await attemptsOf(subscription.id, 1);
    expect((await api(`${path}/deliveries/${tested.deliveryId}/retry`, { method: 'POST' })).status).toBe(202);
    await attemptsOf(subscription.id, 2);
    // A recovery claims the dead delivery and books its slot on the subscription's schedule.
    const since = await recordDeadDelivery(subscription.id, 1);
    expect((await api(`${path}/recover`, { method: 'POST', body: { since } })).body).toMatchObject({ queued: 1 });
    // Sent at its slot (after the test event, its retry and the dead delivery's last attempt), before the next case counts.
    await attemptsOf(subscription.id, 4);
  });

  it('a profile change: detector → fan-out (more watchers than a page) → sender (a failed attempt, then its retry)', async () => {
    const watchers = Array.from({ length: FANOUT_PAGE_SIZE }, (_, index) => ({
      PutRequest: { Item: { pk: `GB#${COMPANY}`, sk: `cli_watcher${String(index).padStart(5, '0')}`, createdAt: 'x', lastFetchedAt: 'x' } },
    }));
    for (let start = 0; start < watchers.length; start += 25) {
      await doc.send(
        new BatchWriteCommand({ RequestItems: { [bureau().runtime.tables.watches as string]: watchers.slice(start, start + 25) } }),
      );
    }
    let failed = false;
    receiver.respondWith((delivery) => {
      if (failed || !delivery.body.includes('profile.changed')) return { status: 200 };
      failed = true;
      return { status: 503 };
    });

    await applyDemoChange(store, 'GB', COMPANY, 'risk');

    await receiver.waitFor((delivery) => delivery.path === '/api' && delivery.body.includes('profile.changed'), 2, 30_000);
    // After the test event, its retry, the dead delivery's last attempt and its recovery: the failure and its retry.
    const attempts = await attemptsOf(subscription.id, 6);
    expect(attempts.slice(0, 2).map((attempt) => attempt.outcome)).toEqual(['delivered', 'failed']);
  });

  it("events: the client's events, the profile change's among them", async () => {
    const listed = await eventually(
      () => api('/v1/events?jurisdiction=GB'),
      (response) => (response.body?.items ?? []).some((item: Loose) => item.data?.companyNumber === COMPANY),
      'the change among the events',
    );
    expect(listed.status).toBe(200);
  });

  it('streamReplay: a batch the detector gave up on, read back from the stream and detected again', async () => {
    const { runtime } = bureau();
    const pointer = await pointerToLatestRecord(
      createDynamoClient(runtime.env),
      runtime.env.DYNAMODB_ENDPOINT as string,
      runtime.tables.companies as string,
      `GB#${COMPANY}`,
    );
    const sqs = createSqsClient(runtime.env);
    await sqs.send(new SendMessageCommand({ QueueUrl: runtime.queues.streamFailures?.queueUrl, MessageBody: JSON.stringify(pointer) }));
    sqs.destroy();

    await eventually(
      async () =>
        logged()
          .filter((call) => call.function === 'streamReplay')
          .map((call) => `${call.resource} ${call.action}`),
      (calls) => calls.includes('fanout SendMessage'),
      'the replayed change queued for fan-out',
    );
  });

  it('workspace: an invitation accepted, its pages, webhooks and deliveries, passkey options, sign-out and sign-in', async () => {
    const origin = bureau().baseUrl;
    let cookie = '';
    let csrf = '';
    const send = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${origin}/workspace/api/${route}`, {
        method,
        headers: {
          origin,
          ...(cookie ? { cookie } : {}),
          ...(csrf ? { 'x-csrf-token': csrf } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const setCookie = response.headers.get('set-cookie');
      if (setCookie) cookie = setCookie.split(';')[0] ?? '';
      const answer = { status: response.status, body: response.status === 204 ? undefined : ((await response.json()) as Loose) };
      if (answer.body?.csrfToken) csrf = answer.body.csrfToken;
      return answer;
    };
    const password = 'harbour lantern quietly orbits';
    const invitation = (bureau().runtime.workspace.invitationLink ?? '').split('/').at(-1);

    expect((await send('POST', 'invitations/accept', { token: invitation, password })).status).toBe(200);
    expect((await send('GET', 'session')).status).toBe(200);
    const watched = await send('GET', 'portfolio');
    expect(watched.body.items.find((row: Loose) => row.companyNumber === COMPANY)?.name).toBe('Quillborough Instruments Ltd');
    expect((await send('GET', `companies/GB/${COMPANY}`)).status).toBe(200);
    expect((await send('GET', 'events?limit=5')).status).toBe(200);

    const created = await send('POST', 'webhooks', { name: 'From the workspace', url: `${receiver.url}/workspace` });
    expect(created.status).toBe(201);
    // Each function opens a secret the other sealed, under a data key it did not make: KMS Decrypt.
    expect((await send('GET', `webhooks/${subscription.id}`)).body.signingSecret).toMatch(/^whsec_/);
    expect((await api(`/v1/webhooks/${created.body.id}`)).body.signingSecret).toBe(created.body.signingSecret);
    const hook = `webhooks/${created.body.id}`;
    expect((await send('GET', 'webhooks')).status).toBe(200);
    expect((await send('GET', hook)).status).toBe(200);
    expect((await send('PATCH', hook, { name: 'From the workspace, renamed' })).status).toBe(200);
    expect((await send('PATCH', hook, { filters: { eventTypes: ['profile.changed'] } })).status).toBe(200);
    expect((await send('PATCH', hook, { filters: null })).body.filters).toBeNull();
    expect((await send('POST', `${hook}/rotate-secret`)).status).toBe(200);
    expect((await send('POST', `${hook}/test`)).status).toBe(202);
    const [tested] = await attemptsOf(created.body.id, 1, () => send('GET', `${hook}/deliveries`));
    expect((await send('GET', `${hook}/delivery-stats`)).status).toBe(200);
    expect((await send('POST', `${hook}/deliveries/${tested.deliveryId}/retry`)).status).toBe(202);
    await attemptsOf(created.body.id, 2, () => send('GET', `${hook}/deliveries`));
    const since = await recordDeadDelivery(created.body.id, 2);
    expect((await send('POST', `${hook}/recover`, { since })).body).toMatchObject({ queued: 1 });
    expect((await send('DELETE', hook)).status).toBe(204);

    const options = await send('POST', 'passkeys/registration-options');
    expect(options.status).toBe(200);
    // An answer no authenticator gave: the challenge is spent, the passkey refused.
    expect((await send('POST', 'passkeys', { challengeId: options.body.challengeId, response: {} })).status).toBe(401);

    expect((await send('POST', 'sign-out')).status).toBe(204);
    cookie = '';
    csrf = '';
    expect((await send('POST', 'sign-in', { email: bureau().runtime.workspace.demoPerson, password })).status).toBe(200);
    expect((await send('POST', 'sign-out-everywhere')).status).toBe(204);
  });

  it('webhooks: delete a subscription', async () => {
    expect((await api(`/v1/webhooks/${subscription.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  // Last: it publishes new signing keys, which the tokens of the earlier steps were not signed with.
  it("key rotation: Secrets Manager's four steps, against a stand-in served on loopback", async () => {
    const secretId = 'arn:aws:secretsmanager:eu-west-2:000000000000:secret:bureau-signing-keys';
    const secrets = new FakeSecretsManager(secretId);
    const served = await serveSecretsManager(secrets);
    const spec = functions.find((candidate) => candidate.id === 'keyRotation');
    const rotation = localFunctionFromSpec(spec as (typeof functions)[number], {
      root: repositoryRoot,
      environment: { ...bureau().runtime.functionEnvironments.keyRotation, SECRETS_MANAGER_ENDPOINT: served.url },
    });
    try {
      secrets.startRotation('rotation-1');
      for (const step of ['createSecret', 'setSecret', 'testSecret', 'finishSecret']) {
        await rotation.invoke({ Step: step, SecretId: secretId, ClientRequestToken: 'rotation-1' });
      }
      expect(secrets.stagesOf('rotation-1')).toEqual(['AWSCURRENT']);
    } finally {
      await rotation.stop();
      await served.stop();
    }
  });
});

/** `service resource action`, an index as `table/index/name`, as the call log and the grants both name it. */
const callKey = (service: string, resource: string, action: string) => `${service} ${resource} ${action}`;

function logged(): LoggedCall[] {
  return readdirSync(callLog).flatMap((file) =>
    readFileSync(join(callLog, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LoggedCall),
  );
}

/** What the function's code may send: the catalogue's grants, less what a queue's event source mapping calls itself. */
function grantedToCode(id: string): string[] {
  const spec = functions.find((candidate) => candidate.id === id);
  if (!spec) throw new Error(`No ${id} in the catalogue`);
  const consumed = new Set(spec.eventSources?.flatMap((source) => (source.kind === 'queue' ? [source.queue.id] : [])));
  const granted = new Set<string>();
  for (const grant of spec.tables) {
    for (const action of grant.access.actions) granted.add(callKey('dynamodb', grant.table.id, action));
    for (const index of grant.access.queryIndexes ?? []) granted.add(callKey('dynamodb', `${grant.table.id}/index/${index}`, 'Query'));
    for (const action of grant.access.streamReads ?? []) granted.add(callKey('dynamodb', grant.table.id, action));
  }
  for (const action of spec.webhookSecrets ? WEBHOOK_SECRETS_ACTIONS[spec.webhookSecrets] : []) {
    granted.add(callKey('kms', WEBHOOK_SECRETS_RESOURCE, action));
  }
  for (const [queueId, { actions }] of queueActionsOf(spec)) {
    for (const action of actions) {
      if (!(consumed.has(queueId) && QUEUE_MAPPING_ACTIONS.includes(action))) granted.add(callKey('sqs', queueId, action));
    }
  }
  return [...granted].sort();
}

describe('what each function sent', () => {
  it('was never refused, and every function with a grant was seen calling', () => {
    const calls = logged();
    const callers = new Set(calls.map((call) => call.function));

    expect(calls.filter((call) => !call.allowed)).toEqual([]);
    expect(functions.filter((spec) => grantedToCode(spec.id).length > 0 && !callers.has(spec.id)).map((spec) => spec.id)).toEqual([]);
  });

  it.each(functions.map((spec) => spec.id))('%s: exactly the calls its catalogue entry grants, each one used', (id) => {
    const sent = new Set(
      logged()
        .filter((call) => call.function === id)
        .map((call) =>
          callKey(call.service, call.index === undefined ? call.resource : `${call.resource}/index/${call.index}`, call.action),
        ),
    );

    expect([...sent].sort()).toEqual(grantedToCode(id));
  });
});

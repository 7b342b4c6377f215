import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../cli/main';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { profileContent } from '../support/profile-fixture';
import { useTestRuntime } from '../support/runtime';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const bureau = useTestRuntime();
let receiver: WebhookReceiver;

beforeAll(async () => {
  const { runtime } = bureau();
  const store = new DynamoCompanyStore(
    createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint })),
    runtime.env.COMPANIES_TABLE as string,
  );
  await store.save(profileContent({ companyNumber: '18000003', name: 'Drillwick Harbour Supplies Ltd' }));
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.stop();
});

async function drill(argv: string[], env: NodeJS.ProcessEnv = credentials()) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['drill', '--url', bureau().baseUrl, '--company', 'GB:18000003', ...argv], {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    env,
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const credentials = () => ({ BUREAU_CLIENT_ID: bureau().demoClient.clientId, BUREAU_CLIENT_SECRET: bureau().demoClient.clientSecret });

async function subscriptionCount(): Promise<number> {
  const token = await bureau().fetchToken();
  const response = await fetch(`${bureau().baseUrl}/v1/webhooks`, { headers: { authorization: `Bearer ${token}` } });
  return ((await response.json()) as { items: unknown[] }).items.length;
}

describe('bureau drill', () => {
  it('proves the deployment end to end as a client, a test webhook delivered to the receiver included, and leaves no subscription behind', async () => {
    receiver.respondWith(() => ({ status: 200 }));

    const outcome = await drill(['--receiver', `${receiver.url}/drill`, '--timeout', '30s']);

    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
    for (const step of ['token', 'document', 'profile', 'search', 'watches', 'subscribe', 'test', 'delivered'])
      expect(outcome.stdout).toMatch(new RegExp(`✓ ${step}\\s`));
    expect(outcome.stdout).toContain('Drillwick Harbour Supplies Ltd');
    expect(outcome.stdout).toMatch(/Drill passed in [\d.]+ s\./);
    expect(receiver.deliveries.filter((delivery) => delivery.path === '/drill')).toHaveLength(1);
    expect(await subscriptionCount()).toBe(0);
  });

  it('stops at the first failing step with its reason and exit code 1, and still removes its subscription', async () => {
    receiver.respondWith(() => ({ status: 503 }));

    const outcome = await drill(['--receiver', `${receiver.url}/refusing`, '--timeout', '30s']);

    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(/✗ delivered .*the delivery failed: 503/);
    expect(outcome.stderr).toContain('the drill failed at "delivered"');
    expect(await subscriptionCount()).toBe(0);
  });

  it('names a company the register does not hold, wrong credentials and missing ones, each as a usage error', async () => {
    const unknown = await drill(['--company', 'GB:18999999']);
    const wrong = await drill([], { BUREAU_CLIENT_ID: bureau().demoClient.clientId, BUREAU_CLIENT_SECRET: 'bsk_wrong' });
    const missing = await drill([], {});

    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/✗ profile .*404 company_not_found/);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/✗ token .*401 invalid_client/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('set BUREAU_CLIENT_ID and BUREAU_CLIENT_SECRET');
  });
});

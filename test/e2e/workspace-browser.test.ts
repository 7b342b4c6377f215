import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { DynamoWorkspaceStore } from '../../shared/workspace/dynamo-workspace-store';
import { invitationLink } from '../../shared/workspace/invitation-link';
import { checkAtBothWidths, launchChromium } from '../support/browser';
import { profileContent } from '../support/profile-fixture';
import { useTestRuntime } from '../support/runtime';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * The workspace in a real browser (Debian's Chromium through playwright-core), against the local
 * runtime that `npm start` runs: a person opens their one-time link, manages a webhook endpoint,
 * watches a test event arrive, adds a passkey (confirming their password), signs in with it, removes
 * it, and loses every passkey by following a new link. Each page is checked with axe-core
 * at desktop and phone width, and photographed into test-results/workspace/.
 */
// Client records are cached one second, so disabling the client shows within the test.
const bureau = useTestRuntime({ CLIENT_CACHE_SECONDS: '1' });
const PASSWORD = 'harbour lantern quietly orbits';
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: WebhookReceiver;
const cspViolations: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(bureau().runtime.workspace.url).origin });
  page = await context.newPage();
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  // The demo client watches one company, as a fetch through the API records.
  const store = new DynamoCompanyStore(
    createDocumentClient(createDynamoClient(bureau().runtime.env)),
    bureau().runtime.tables.companies as string,
  );
  await store.save(profileContent({ companyNumber: '15380840', name: 'CPA GATES LTD' }));
  const token = await bureau().fetchToken();
  const fetched = await fetch(`${bureau().baseUrl}/v1/profile/15380840?jurisdiction=GB`, { headers: { authorization: `Bearer ${token}` } });
  expect(fetched.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
});

const checkPage = (name: string) => checkAtBothWidths(page, name);

const heading = (text: string | RegExp) => page.getByRole('heading', { level: 1, name: text });

const workspaceStore = () =>
  new DynamoWorkspaceStore(createDocumentClient(createDynamoClient(bureau().runtime.env)), bureau().runtime.tables.workspace as string);

/** Moves the last password or passkey check of every live session back by `ms`, as time passing would. */
async function ageSessionChecks(ms: number): Promise<void> {
  const doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
  const table = bureau().runtime.tables.workspace as string;
  const sessions = await doc.send(
    new ScanCommand({ TableName: table, FilterExpression: 'sk = :session', ExpressionAttributeValues: { ':session': 'SESSION' } }),
  );
  for (const session of sessions.Items ?? []) {
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: session.pk, sk: session.sk },
        UpdateExpression: 'SET checkedAtMs = :then',
        ExpressionAttributeValues: { ':then': Date.now() - ms },
      }),
    );
  }
}

describe('the workspace in a browser', () => {
  it('serves its pages with a strict Content-Security-Policy and no framing', async () => {
    const response = await fetch(bureau().runtime.workspace.url);
    const policy = response.headers.get('content-security-policy') ?? '';

    expect(response.status).toBe(200);
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('lets the demo person choose a password from the one-time link printed at start', async () => {
    const link = bureau().runtime.workspace.invitationLink as string;
    expect(link).toMatch(/^http:\/\/localhost:\d+\/workspace\/#\/invite\/[\w-]{43}$/);

    await page.goto(link);
    await heading('Choose your password').waitFor();
    await checkPage('accept-invitation');
    expect(page.url(), 'the token leaves the address bar').not.toContain(link.split('/').at(-1));
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();

    await heading('Overview').waitFor();
    await expect(page.getByText(bureau().demoClient.clientId).first().isVisible()).resolves.toBe(true);
    await checkPage('overview');
  });

  it('copies the client id to the clipboard', async () => {
    await page.getByRole('button', { name: 'Copy client id' }).click();
    await page.getByText('Copied.').first().waitFor();

    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(bureau().demoClient.clientId);
  });

  it('registers an endpoint, refusing a bad URL with the API’s own message first', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await heading('Webhooks').waitFor();
    await page.getByLabel('Name').fill('Local receiver');
    await page.getByLabel('Endpoint URL').fill('https://10.0.0.5/hooks');
    await page.getByRole('button', { name: 'Register' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /public|private|address/i })
      .waitFor();
    await checkPage('webhooks');

    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/hooks`);
    await page.getByRole('button', { name: 'Register' }).click();

    await heading('Local receiver').waitFor();
    await checkPage('webhook');
  });

  it('reveals and copies the signing secret, sends a test event and shows it delivered in the log', async () => {
    await page.getByRole('button', { name: 'Reveal' }).click();
    const secret = (await page.locator('code.secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);

    await page.getByRole('button', { name: 'Send a test event' }).click();
    const [delivery] = await receiver.waitFor((received) => received.body.includes('"webhook.test"'), 1, 20_000);
    await page.locator('.attempt.delivered').filter({ hasText: 'webhook.test' }).first().waitFor({ timeout: 20_000 });

    expect(() => new Webhook(secret).verify(delivery?.body ?? '', delivery?.headers ?? {})).not.toThrow();
    await checkPage('deliveries');
  });

  it('retries a delivery from the log', async () => {
    await page.locator('tr.attempt').first().getByRole('button').click();
    await page.getByRole('button', { name: 'Retry delivery' }).first().click();
    await page.getByText(/queued again/).waitFor();

    await receiver.waitFor((received) => received.body.includes('"webhook.test"'), 2, 20_000);
  });

  it("shows a failed delivery with the start of its endpoint's answer, folded until asked for, and as text only", async () => {
    const answer = '<b>Ledger service unavailable</b><script>window.answerRan = true</script>';
    receiver.respondWith(() => ({ status: 500, body: answer }));
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const failed = page.locator('tr.attempt.failed').filter({ hasText: 'webhook.test' }).first();
    await failed.waitFor({ timeout: 20_000 });
    receiver.respondWith(() => ({ status: 200 }));
    await failed.locator('td', { hasText: /^500$/ }).waitFor();
    await failed.locator('td', { hasText: /^\d+ ms$/ }).waitFor();
    const opener = failed.getByRole('button');
    await opener.click();
    const detail = page.locator(`#${await opener.getAttribute('aria-controls')}`);
    const excerpt = detail.locator('details.answer pre');
    await detail.getByText('Answer body').waitFor();
    expect(await excerpt.isVisible(), 'folded at first').toBe(false);

    await detail.getByText('Answer body').click();

    await excerpt.waitFor();
    expect(await excerpt.textContent()).toBe(answer);
    expect(await detail.locator('details.answer b, details.answer script').count(), 'no markup of the answer in the page').toBe(0);
    expect(await page.evaluate('window.answerRan')).toBeUndefined();
    await checkPage('deliveries-failed');
  });

  it('rotates the secret and shows how long the previous one keeps signing', async () => {
    const before = await page.locator('code.secret').textContent();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText(/previous secret keeps signing beside the new one until/).waitFor();

    expect(await page.locator('code.secret').textContent()).not.toBe(before);
  });

  it('disables and enables the endpoint', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.locator('.badge', { hasText: 'Disabled' }).first().waitFor();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.locator('.badge', { hasText: 'Active' }).first().waitFor();
  });

  it("narrows the endpoint's events with filters, kept across a reload and shown in the list, and removes them", async () => {
    const types = ['A block changed', 'Early signal detected', 'Early signal updated'];
    for (const type of types) await page.getByLabel(type).uncheck();
    await page.getByRole('button', { name: 'Save filters' }).click();
    await page.getByRole('alert').filter({ hasText: 'Tick at least one event type' }).waitFor();
    await page.getByLabel('A block changed').check();
    await page.getByLabel('Early signal detected').check();
    await page.getByLabel('Ireland').uncheck();
    await page.getByLabel('Only these companies').fill('gb:1234567');
    await page.getByRole('button', { name: 'Save filters' }).click();
    await page.getByText('Filters saved.').waitFor();
    expect(await page.getByLabel('Only these companies').inputValue(), 'as the API normalised it').toBe('GB:01234567');
    await page.reload();
    await page.getByRole('button', { name: 'Save filters' }).waitFor();

    expect(await page.getByLabel('Ireland').isChecked()).toBe(false);
    expect(await page.getByLabel('Early signal updated').isChecked()).toBe(false);
    expect(await page.getByLabel('Great Britain').isChecked()).toBe(true);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('Only: A block changed or Early signal detected; Great Britain; 1 company').waitFor();
    await checkPage('webhooks-filtered');
    await page.getByRole('link', { name: 'Local receiver' }).click();
    await heading('Local receiver').waitFor();

    await page.getByLabel('Only these companies').fill('GB:nonsense');
    await page.getByRole('button', { name: 'Save filters' }).click();
    await page.getByRole('alert').filter({ hasText: 'not a valid GB company number' }).waitFor();
    await page.getByLabel('Only these companies').fill('');
    await page.getByLabel('Ireland').check();
    await page.getByLabel('Early signal updated').check();
    await page.getByRole('button', { name: 'Save filters' }).click();
    await page.getByText('Filters removed: every event is sent.').waitFor();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    // Exactly the list's line: the endpoint's page, until the list replaces it, says "every event" too.
    await page.getByText('Every event', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Local receiver' }).click();
    await heading('Local receiver').waitFor();
  });

  it('recovers the failed deliveries of a chosen period', async () => {
    await page.getByLabel('Failed in').selectOption({ label: 'the last 7 days' });
    await page.getByRole('button', { name: 'Recover' }).click();
    await page.getByText(/No delivery ended without success in that time|queued again with their original ids/).waitFor();
  });

  it('finds a watched company and shows its profile readably', async () => {
    await page.getByRole('link', { name: 'Portfolio' }).click();
    await heading('Portfolio').waitFor();
    await page.getByLabel('Name or number').fill('gates');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'CPA GATES LTD' }).waitFor();
    await checkPage('watched-companies');

    await page.getByRole('link', { name: 'CPA GATES LTD' }).click();
    await heading('CPA GATES LTD').waitFor();
    await page.getByRole('heading', { name: 'Risk of failure' }).waitFor();
    await checkPage('company');
  });

  it('adds a passkey after the person confirms their password, then signs in with it alone', async () => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    // The person signed in longer ago than a recent check allows.
    await ageSessionChecks(10 * 60_000);
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByText('You have no passkeys.').waitFor();
    await page.getByLabel('Name of the new passkey (optional)').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await checkPage('passkey-confirm');
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and add the passkey' }).click();
    await page.getByText('Passkey added').waitFor();
    const list = page.getByRole('list', { name: 'Your passkeys' });
    await list.getByText('Test laptop').waitFor();
    await list.getByText('Never used').waitFor();

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading('Sign in to your Bureau workspace').waitFor();
    await checkPage('sign-in');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();

    await heading('Overview').waitFor();
    await list.getByText(/Last used/).waitFor();
    await checkPage('overview-passkeys');
  });

  it('removes a passkey after asking, so that it signs in no more', async () => {
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove Test laptop' }).click();
    await page.getByText('Passkey "Test laptop" removed.').waitFor();
    await page.getByText('You have no passkeys.').waitFor();

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText('The passkey could not be verified').waitFor();
  });

  it('removes every passkey when the person follows a sign-in link, and says so before and after', async () => {
    await page.getByLabel('E-mail address').fill(bureau().runtime.workspace.demoPerson);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading('Overview').waitFor();
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey added').waitFor();
    const { token } = await workspaceStore().invite(bureau().demoClient.clientId, bureau().runtime.workspace.demoPerson);

    await page.goto(invitationLink(new URL(bureau().runtime.workspace.url).origin, token));
    await heading('Choose your password').waitFor();
    await page.getByText('removes every passkey on your account').waitFor();
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();

    await heading('Overview').waitFor();
    await page.getByText('Your passkey was removed').waitFor();
    await page.getByText('You have no passkeys.').waitFor();
  });

  it('deletes the endpoint after asking', async () => {
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: 'Local receiver' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();

    await heading('Webhooks').waitFor();
    await page.getByText('None yet.').waitFor();
  });

  it('shows a disabled account as disabled and nothing else, until it is enabled again', async () => {
    const registry = new DynamoClientRegistry(
      createDocumentClient(createDynamoClient(bureau().runtime.env)),
      bureau().runtime.tables.clients as string,
    );
    await registry.disable(bureau().demoClient.clientId);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await page.reload();

    await heading('This account is disabled').waitFor();
    expect(await page.getByRole('navigation', { name: 'Workspace' }).count()).toBe(0);
    await checkPage('account-disabled');

    await registry.enable(bureau().demoClient.clientId);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await page.reload();
    await heading('Webhooks').waitFor();
  });

  it('signs in with the keyboard alone, and signs out everywhere', async () => {
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await heading('Sign in to your Bureau workspace').waitFor();

    await page.keyboard.press('Tab');
    await page.keyboard.type(bureau().runtime.workspace.demoPerson);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');

    await heading('Overview').waitFor();
    expect(cspViolations).toEqual([]);
  });
});

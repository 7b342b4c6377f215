import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CONTENT_SECURITY_POLICY, REFERENCE_SANDBOX } from '../../shared/workspace/site-headers';
import { axeViolations, fitsWidth, launchChromium, SCREENSHOTS } from '../support/browser';
import { useTestRuntime } from '../support/runtime';

/**
 * The API reference page in a real browser (Debian's Chromium through playwright-core), against the
 * local runtime that `npm start` runs: Scalar renders the API's own OpenAPI document under the
 * page's Content-Security-Policy without a single violation and without asking any other origin
 * for anything (no fonts, telemetry, proxy or CDN), so it works offline. It runs sandboxed, in an
 * opaque origin: a flaw in its third-party bundle could not reach the workspace's session.
 */
const bureau = useTestRuntime();
const PASSWORD = 'harbour lantern quietly orbits';
let browser: Browser;
let context: BrowserContext;
let page: Page;
let origin: string;
const requests: string[] = [];
const violations: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  origin = new URL(bureau().runtime.workspace.url).origin;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  // The listener is evaluated through the DevTools protocol, which the page's policy does not
  // govern, and reports through a binding: the policy under test stays exactly as served.
  await page.exposeFunction('reportViolation', (violation: string) => violations.push(violation));
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || '')))",
  );
  await context.addInitScript(STORAGE_ON_LOAD);
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** What the window shows: with every section open the whole page is too tall to photograph. */
async function photograph(name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** The request headers a page's script chose, beyond those the browser sends of its own accord and the CORS-safelisted. */
const authorHeaders = (headers: Record<string, string>) =>
  Object.keys(headers).filter(
    (name) =>
      !name.startsWith('sec-') &&
      !['host', 'connection', 'user-agent', 'referer', 'origin', 'accept', 'accept-encoding', 'accept-language'].includes(name),
  );

/** The browser's own localStorage, asked for as a page loads: before the reference page puts its stand-in for Scalar in place. */
const STORAGE_ON_LOAD =
  "try { window.storageOnLoad = 'read ' + window.localStorage.length; } catch (error) { window.storageOnLoad = 'threw ' + error.name; }";

/** What a script of the page sees, and what becomes of its attempts on the workspace's session. */
const SESSION_PROBE = `(async () => {
  let cookie;
  try { cookie = 'read ' + JSON.stringify(document.cookie); } catch (error) { cookie = 'threw ' + error.name; }
  let session;
  try {
    const answer = await fetch('/workspace/api/session', { credentials: 'include' });
    session = 'read ' + answer.status;
  } catch (error) { session = 'rejected ' + error.name; }
  return { origin: window.origin, cookie, storage: window.storageOnLoad, session };
})()`;

async function openFromSidebar(name: string): Promise<void> {
  // The sidebar comes first in the page; its links' names also hold the method.
  await page.getByText(name, { exact: true }).first().click();
  await page.getByRole('heading', { name, exact: true }).first().waitFor();
}

describe('the API reference in a browser', () => {
  it('is served with its own strict policy, and the bare folder redirects to it', async () => {
    const response = await fetch(`${origin}/workspace/reference/`);
    const bare = await fetch(`${origin}/workspace/reference`, { redirect: 'manual' });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(REFERENCE_CONTENT_SECURITY_POLICY);
    expect(REFERENCE_CONTENT_SECURITY_POLICY.split('; ')).toContain('sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox');
    expect(REFERENCE_SANDBOX).not.toMatch(/allow-same-origin|allow-forms/);
    expect(REFERENCE_CONTENT_SECURITY_POLICY).toMatch(/script-src 'self';/);
    expect(REFERENCE_CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/workspace/reference/');
  });

  it("renders the API's operations and webhooks from /v1/openapi.json", async () => {
    const documentFetched = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/openapi.json');

    await page.goto(`${origin}/workspace/reference/`);
    const document = await documentFetched;
    // Sections are mounted as they come into view: each is reached from the sidebar, as a reader would.
    await openFromSidebar('Search companies by name or number');
    await page.screenshot({ path: '/tmp/reference.png' });
    await openFromSidebar('Register an endpoint to receive webhooks');
    // The document's webhooks: the events a subscription receives.
    await openFromSidebar('Profile changed');

    expect(document.url()).toBe(`${origin}/v1/openapi.json`);
    expect(document.status()).toBe(200);
    // Read cross-origin, from the sandbox, through the API's CORS.
    expect(document.headers()['access-control-allow-origin']).toBe('*');
    // A plain GET, which needs no preflight: the edge's behaviour for the document answers none.
    expect(authorHeaders(await document.request().allHeaders())).toEqual([]);
    expect(await fitsWidth(page), 'fits 1280 px').toBe(true);
    // Contrast is this page's to fix (web/reference/theme.css); the rest is in Scalar's own markup
    // (icon-only buttons and links without a name, a scrolling list without a tab stop).
    const inScalarsMarkup = ['button-name', 'link-name', 'scrollable-region-focusable'];
    expect((await axeViolations(page, { sandboxed: true })).filter((violation) => !inScalarsMarkup.includes(violation.id))).toEqual([]);
    await photograph('reference');
    await page.setViewportSize({ width: 360, height: 780 });
    await page.getByRole('heading', { name: 'Profile changed', exact: true }).first().waitFor();
    expect(await fitsWidth(page), 'fits a 360 px phone').toBe(true);
    await photograph('reference-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 60_000);

  it('breaks no rule of its Content-Security-Policy and asks no other origin for anything', async () => {
    await openFromSidebar("A company's profile");
    await page.mouse.wheel(0, 50_000);
    await page.getByRole('heading', { name: 'Models' }).first().waitFor();

    const foreign = requests.filter((url) => /^(https?|wss?):/.test(url) && new URL(url).origin !== origin);
    expect(violations).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(foreign).toEqual([]);
    expect(requests.filter((url) => new URL(url).pathname === '/v1/openapi.json')).toHaveLength(1);
  });

  it('sends a test request to this origin itself, through no proxy', async () => {
    await openFromSidebar('Search companies by name or number');
    await page.locator('button', { hasText: 'Test Request(get /v1/search)' }).click();
    const [sent] = await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/search'),
      page.getByRole('button', { name: /^Send Request/ }).click(),
    ]);
    await page.screenshot({ path: '/tmp/reference-client.png' });

    // Without a token: the API's own 401, which the browser also reports on the console.
    expect(sent.url()).toMatch(new RegExp(`^${origin}/v1/search\\?`));
    expect(sent.status()).toBe(401);
    expect(consoleErrors.filter((error) => !error.includes('status of 401'))).toEqual([]);
    expect(violations).toEqual([]);
    expect(requests.filter((url) => /^(https?|wss?):/.test(url) && new URL(url).origin !== origin)).toEqual([]);
  });

  it("runs in an opaque origin, where the workspace's session, open in the same browser, is neither sent nor read", async () => {
    // A person of the client signs in to the workspace in this browser: its cookie is in the jar.
    const token = new URL(bureau().runtime.workspace.invitationLink as string).hash.split('/').at(-1);
    const accepted = await context.request.post(`${origin}/workspace/api/invitations/accept`, { data: { token, password: PASSWORD } });
    expect(accepted.status()).toBe(200);
    // A page of the workspace's origin, not sandboxed, reads that session with its cookie.
    const workspaceSide = await context.newPage();
    await workspaceSide.goto(`${origin}/v1/openapi.json`);
    const there = await workspaceSide.evaluate<{ origin: string; storage: string; session: string }>(SESSION_PROBE);
    await workspaceSide.close();

    await page.goto(`${origin}/workspace/reference/`);
    await page.getByText('Search companies by name or number', { exact: true }).first().waitFor();
    const here = await page.evaluate<{ origin: string; cookie: string; storage: string; session: string }>(SESSION_PROBE);

    expect(there).toMatchObject({ origin, storage: expect.stringMatching(/^read /), session: 'read 200' });
    expect(here.origin).toBe('null');
    expect(['read ""', 'threw SecurityError']).toContain(here.cookie);
    expect(here.storage).toBe('threw SecurityError');
    // Cross-origin from the sandbox, asking for credentials: the API's CORS never allows them, so the answer is never read.
    expect(here.session).toBe('rejected TypeError');
  }, 60_000);

  it('keeps its contrast in the dark theme, which follows the system', async () => {
    const dark = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await dark.goto(`${origin}/workspace/reference/`);
    await dark.getByText('Search companies by name or number', { exact: true }).first().waitFor({ timeout: 20_000 });

    expect(await dark.evaluate<string>('document.body.className')).toContain('dark-mode');
    expect((await axeViolations(dark, { sandboxed: true })).map((violation) => violation.id)).not.toContain('color-contrast');
    await dark.screenshot({ path: join(SCREENSHOTS, 'reference-dark.png') });
    await dark.close();
  }, 60_000);
});

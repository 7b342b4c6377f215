import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { repositoryRoot } from '../../local/paths';

/**
 * Debian's Chromium, driven by playwright-core (Playwright's own browser download is not used).
 * CHROMIUM_PATH overrides the binary; .ci/run installs the `chromium` package where it is missing.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium was not found at ${CHROMIUM}: install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/** Screenshots of each page, for a reviewer to look at (git-ignored). */
export const SCREENSHOTS = join(repositoryRoot, 'test-results', 'workspace');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly string[];
}

/**
 * axe-core's WCAG 2.x A and AA rules on the page as it is now. The engine is evaluated through the
 * DevTools protocol, which the page's Content-Security-Policy does not govern, so the policy under
 * test stays exactly as served. A sandboxed page (opaque origin) cannot fetch its own stylesheets
 * again, as axe does to read their rules, so for such a page `sandboxed` skips that fetch (and the
 * one rule that needs it, that no stylesheet locks the orientation).
 */
export async function axeViolations(page: Page, { sandboxed = false }: { sandboxed?: boolean } = {}): Promise<AxeViolation[]> {
  await page.evaluate(axe.source);
  // Runs in the page, which has its own globals: written as the page's script, not this program's.
  const result = await page.evaluate<axe.AxeResults>(
    `window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }${sandboxed ? ', preload: false' : ''} })`,
  );
  return result.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact ?? null,
    help: violation.help,
    nodes: violation.nodes.map((node) => node.target.join(' ')),
  }));
}

/** True when nothing on the page is wider than the window: usable without scrolling sideways. */
export function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}

/**
 * No axe violation and no sideways scrolling, at desktop width (1280 px) and at a phone's (360 px),
 * each photographed; `atPhoneWidth` checks what the page must do while narrow (a table scrolling in
 * its own region, say).
 */
export async function checkAtBothWidths(page: Page, name: string, atPhoneWidth?: () => Promise<void>): Promise<void> {
  expect(await axeViolations(page), `axe on ${name}`).toEqual([]);
  expect(await fitsWidth(page), `${name} fits 1280 px`).toBe(true);
  await screenshot(page, name);
  await page.setViewportSize({ width: 360, height: 780 });
  expect(await fitsWidth(page), `${name} fits a 360 px phone`).toBe(true);
  expect(await axeViolations(page), `axe on ${name} at phone width`).toEqual([]);
  await atPhoneWidth?.();
  await screenshot(page, `${name}-phone`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A wide table scrolls within its own region, reachable by keyboard, while the page does not scroll sideways. */
export async function expectTableScrollsInItsRegion(page: Page, region: RegExp): Promise<void> {
  const scroller = page.getByRole('region', { name: region }).first();
  expect(await scroller.evaluate((element) => element.scrollWidth > element.clientWidth), 'the table scrolls within its region').toBe(true);
  expect(await scroller.getAttribute('tabindex')).toBe('0');
}

/**
 * A page at desktop width signed in as the person an invitation link names: the password chosen on
 * the link's page, as a new user does, and the Overview on screen. Content-Security-Policy messages
 * on the console are collected, so a test can say none appeared.
 */
export async function signedInPage(
  browser: Browser,
  invitationLink: string,
  password: string,
): Promise<{ readonly page: Page; readonly cspViolations: string[] }> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  await page.goto(invitationLink);
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('The same password again').fill(password);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return { page, cspViolations };
}

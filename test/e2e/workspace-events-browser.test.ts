import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import type { BlockName, Jurisdiction } from '../../shared/companies/profile';
import { DynamoClientEventStore } from '../../shared/events/dynamo-client-events';
import type { WebhookEnvelope } from '../../shared/events/envelope';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { companiesTable, eventsTable, watchesTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import {
  axeViolations,
  checkAtBothWidths,
  expectTableScrollsInItsRegion,
  launchChromium,
  screenshot,
  signedInPage,
} from '../support/browser';
import { profileContent } from '../support/profile-fixture';
import { useTestRuntime } from '../support/runtime';

/**
 * The events feed in a real browser (Debian's Chromium through playwright-core) against the local
 * runtime, at volume: a client watching 1,000 companies with 4,000 events over 30 days, written
 * through the stores the fan-out and a profile fetch write with. Every filter, paging both ways,
 * the keyboard alone, axe-core at 1280 px and 360 px, the company link, and the time from
 * navigation to the first row.
 */
const bureau = useTestRuntime();
const PASSWORD = 'harbour lantern quietly orbits';
const COMPANIES = 1_000;
const EVENTS = 4_000;
const DAY_MS = 24 * 3600 * 1000;
const BLOCKS: readonly BlockName[] = ['overview', 'tradingStatus', 'filingBehaviour', 'riskOfFailure', 'creditCapacity'];
/** A page of the feed as the app asks for it. */
const PAGE_SIZE = 50;

let browser: Browser;
let page: Page;
let cspViolations: string[];

/** The i-th watched company: nine in ten from Companies House, the rest from the CRO. */
const company = (i: number): { jurisdiction: Jurisdiction; companyNumber: string; name: string } =>
  i < 900
    ? { jurisdiction: 'GB', companyNumber: `17${String(i).padStart(6, '0')}`, name: `Harbourline Trading ${i} Ltd` }
    : { jurisdiction: 'IE', companyNumber: String(700_000 + i), name: `Claddagh Holdings ${i} DAC` };

/** The i-th event, newest first, spread evenly over the last 30 days less an hour. */
function event(i: number, now: number): WebhookEnvelope {
  const { jurisdiction, companyNumber } = company(i % COMPANIES);
  const occurredAt = new Date(now - 60_000 - Math.floor((i * (30 * DAY_MS - 3_600_000)) / EVENTS)).toISOString();
  const data = { jurisdiction, companyNumber };
  if (i % 10 === 3 || i % 10 === 7) {
    const state = i % 10 === 3 ? 'active' : 'superseded';
    return {
      type: state === 'active' ? 'profile.early_signal.detected' : 'profile.early_signal.updated',
      apiVersion: 'v1',
      occurredAt,
      idempotencyKey: `early_signal:${jurisdiction}:${companyNumber}:sig_accounts_overdue_${occurredAt.slice(0, 10)}:${state}`,
      block: 'earlySignals',
      data,
    };
  }
  const block = BLOCKS[i % BLOCKS.length] as BlockName;
  return {
    type: 'profile.changed',
    apiVersion: 'v1',
    occurredAt,
    idempotencyKey: `profile.changed:${jurisdiction}:${companyNumber}:${block}:v${EVENTS - i}`,
    block,
    data,
  };
}

async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(each));
}

beforeAll(async () => {
  const { runtime } = bureau();
  const doc = createDocumentClient(createDynamoClient(runtime.env));
  const companies = new DynamoCompanyStore(doc, runtime.tables[companiesTable.id] as string);
  const watches = new DynamoWatchStore(doc, runtime.tables[watchesTable.id] as string);
  const events = new DynamoClientEventStore(doc, runtime.tables[eventsTable.id] as string);
  const clientId = bureau().demoClient.clientId;
  const now = Date.now();
  const all = Array.from({ length: COMPANIES }, (_, i) => company(i));
  // The companies, then the client's watches of them (as its profile fetches record them), then its events
  // as the fan-out records them for each watcher.
  await inBatches(all, 25, (each) => companies.save(profileContent(each)));
  await inBatches(all, 25, (each) =>
    watches.recordWatch(clientId, each.jurisdiction, each.companyNumber, new Date(now - 31 * DAY_MS).toISOString()),
  );
  const envelopes = Array.from({ length: EVENTS }, (_, i) => event(i, now));
  await inBatches(envelopes, 25, (envelope) => events.recordFor([clientId], envelope));

  browser = await launchChromium();
  ({ page, cspViolations } = await signedInPage(browser, runtime.workspace.invitationLink as string, PASSWORD));
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

const heading = (text: string | RegExp) => page.getByRole('heading', { level: 1, name: text });
const table = () => page.getByRole('table', { name: /Events/ });
const rows = () => table().locator('tbody tr');
/** The text of one column (1-based) of every row shown. */
const column = (index: number) => table().locator(`tbody tr td:nth-child(${index})`).allInnerTexts();
const firstRowId = () => rows().first().getAttribute('data-event-id');
const pageStatus = () => page.getByText(/^Page \d+/).first();

/** Waits for the table to settle on a page of rows (or on none). */
async function settled(): Promise<void> {
  await page.locator('table[aria-busy="false"]').waitFor();
}

/** Does what a person does, then waits for the page of events it asked for to be on screen. */
async function loaded(action: () => Promise<unknown>): Promise<void> {
  const answered = page.waitForResponse((response) => response.url().includes('/workspace/api/events'));
  await action();
  await answered;
  await settled();
}

const checkPage = (name: string) => checkAtBothWidths(page, name, () => expectTableScrollsInItsRegion(page, /Events/));

/** Opens the feed afresh at the hash given and returns the milliseconds from navigation to its first row. */
async function openFeed(hash: string): Promise<number> {
  await page.goto('about:blank');
  const started = Date.now();
  await page.goto(`${bureau().runtime.workspace.url}${hash}`);
  await rows().first().waitFor({ state: 'visible' });
  return Date.now() - started;
}

async function choose(label: string, option: string): Promise<void> {
  await page.getByLabel(label, { exact: true }).selectOption({ label: option });
  await loaded(() => page.getByRole('button', { name: 'Apply filters' }).click());
}

describe('the events feed in a browser, at volume', () => {
  it('shows the newest events first in a table, the time to its first rows printed', async () => {
    await openFeed('#/events');
    await heading('Events').waitFor();
    await settled();

    const times = await table()
      .locator('tbody time')
      .evaluateAll((all) => all.map((each) => each.getAttribute('datetime') ?? ''));
    expect(await rows().count()).toBe(PAGE_SIZE);
    expect(times).toEqual([...times].sort().reverse());
    expect(await page.getByRole('columnheader').allInnerTexts()).toEqual(['Time', 'Event', 'Company', 'Block', 'What changed']);
    expect((await column(3))[0]).toContain('Harbourline Trading 0 Ltd');
    expect((await column(3))[0]).toContain('GB 17000000');
    expect((await column(2))[3]).toBe('Signal detected');
    expect((await column(5))[1]).toBe('Trading status changed (profile version 3999)');
    expect((await column(5))[3]).toMatch(/^New early signal: accounts overdue \(\d{4}-\d{2}-\d{2}\)$/);
    expect((await column(5))[7]).toMatch(/^Early signal superseded: accounts overdue \(\d{4}-\d{2}-\d{2}\)$/);
    await checkPage('events');

    // The page opened afresh three times per query, after the visit above: the median, beside the answer's own time.
    for (const [what, hash] of [
      ['newest events', '#/events'],
      ["one company's events", `#/events/${encodeURIComponent('companyNumber=17000042&jurisdiction=GB')}`],
      ['one block in a date range', `#/events/${encodeURIComponent(`block=creditCapacity&since=${dayAgo(20)}&until=${dayAgo(10)}`)}`],
    ]) {
      const runs: number[] = [];
      for (let run = 0; run < 3; run++) runs.push(await openFeed(hash as string));
      const served = await page.evaluate<number>(
        "performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/workspace/api/events')).map((entry) => entry.duration)[0] ?? -1",
      );
      const median = [...runs].sort((a, b) => a - b)[1] as number;
      console.log(
        `events feed, ${COMPANIES} watched companies and ${EVENTS} events, ${what}: first rows ${runs.join(', ')} ms from navigation (median ${median}); the events call ${Math.round(served)} ms`,
      );
    }
  });

  it('filters by event type, block and register, keeping the filters in the address through a reload', async () => {
    await openFeed('#/events');

    await choose('Event type', 'Signal updated');
    expect(new Set(await column(2))).toEqual(new Set(['Signal updated']));
    expect(await rows().count()).toBe(PAGE_SIZE);

    await choose('Event type', 'Block changed');
    await choose('Block', 'Credit capacity');
    expect(new Set(await column(4))).toEqual(new Set(['Credit capacity']));
    expect(new Set(await column(2))).toEqual(new Set(['Block changed']));

    await choose('Register', 'Ireland');
    const companies = await column(3);
    expect(companies.length).toBeGreaterThan(0);
    for (const text of companies) expect(text).toMatch(/^Claddagh Holdings \d+ DAC\s+IE \d+$/);

    await loaded(() => page.reload());
    await heading('Events').waitFor();
    expect(await page.getByLabel('Event type', { exact: true }).inputValue()).toBe('profile.changed');
    expect(await page.getByLabel('Block', { exact: true }).inputValue()).toBe('creditCapacity');
    expect(await page.getByLabel('Register', { exact: true }).inputValue()).toBe('IE');
    expect(await column(3)).toEqual(companies);

    await loaded(() => page.getByRole('button', { name: 'Clear' }).click());
    expect(page.url()).toMatch(/#\/events$/);
    expect(await rows().count()).toBe(PAGE_SIZE);
  });

  it('filters by company number and by a time range, and links each row to the company', async () => {
    await openFeed('#/events');
    await page.getByLabel('Company number').fill('17000042');
    await page.getByLabel('Register', { exact: true }).selectOption({ label: 'Great Britain' });
    await loaded(() => page.getByRole('button', { name: 'Apply filters' }).click());
    // Events 42, 1042, 2042 and 3042 fall on this company. A page reads at most 1,000 events (the API's budget),
    // so a rare company's events arrive over several pages, each saying whether there is more.
    const found: string[] = [];
    for (let turn = 0; turn < 10; turn++) {
      found.push(...(await column(3)));
      const next = page.getByRole('button', { name: /Next/ });
      if ((await next.count()) === 0 || (await next.isDisabled())) break;
      await loaded(() => next.click());
      await pageStatus()
        .filter({ hasText: `Page ${turn + 2}` })
        .waitFor();
    }
    expect(found).toHaveLength(4);
    for (const text of found) expect(text).toMatch(/Harbourline Trading 42 Ltd\s+GB 17000042/);

    await loaded(() => page.getByRole('button', { name: 'Clear' }).click());
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
    await page.getByLabel('From (UTC)').fill(day(12));
    await page.getByLabel('To (UTC)').fill(day(10));
    await loaded(() => page.getByRole('button', { name: 'Apply filters' }).click());
    const times = await table()
      .locator('tbody time')
      .evaluateAll((all) => all.map((each) => each.getAttribute('datetime') ?? ''));
    expect(times.length).toBe(PAGE_SIZE);
    for (const time of times) {
      expect(time >= `${day(12)}T00:00:00.000Z` && time <= `${day(10)}T23:59:59.999Z`, time).toBe(true);
    }
    expect(times[0]?.slice(0, 10)).toBe(day(10));

    await rows().first().getByRole('link').click();
    await page.waitForURL(/#\/companies\/(GB|IE)\/\d+$/);
    const [, jurisdiction, number] = /#\/companies\/(GB|IE)\/(\d+)$/.exec(page.url()) ?? [];
    const shown = company([...Array(COMPANIES).keys()].find((i) => company(i).companyNumber === number) ?? -1);
    expect(shown.jurisdiction).toBe(jurisdiction);
    await heading(shown.name).waitFor();
  });

  it('says next to the filter what the server refused in it', async () => {
    await openFeed('#/events');
    await page.getByLabel('Company number').fill('not a number!');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const companyNumber = page.getByLabel('Company number');
    await page.locator('#events-companyNumber[aria-invalid="true"]').waitFor();
    const problem = page.locator(`#${await companyNumber.getAttribute('aria-describedby')}`);
    expect(await problem.textContent()).toMatch(/not a company number|number/i);
    await checkPageAxeOnly('events-refused');

    await page.getByLabel('Company number').fill('');
    await page.getByLabel('From (UTC)').fill(new Date(Date.now() - 3 * DAY_MS).toISOString().slice(0, 10));
    await page.getByLabel('To (UTC)').fill(new Date(Date.now() - 5 * DAY_MS).toISOString().slice(0, 10));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#events-until[aria-invalid="true"]').waitFor();
    expect(await page.locator('#events-until-problem').textContent()).toMatch(/until must not be before since/);
    expect(await page.locator('#events-companyNumber[aria-invalid="true"]').count()).toBe(0);
  });

  it('pages forward and back, each page the same size, the pages meeting without a gap', async () => {
    await openFeed('#/events');
    await settled();
    const first = await rows().evaluateAll((all) => all.map((row) => row.getAttribute('data-event-id')));
    const previous = page.getByRole('button', { name: /Previous/ });
    const next = page.getByRole('button', { name: /Next/ });
    expect(await previous.isDisabled()).toBe(true);
    await expect(pageStatus().textContent()).resolves.toMatch(/Page 1/);

    await loaded(() => next.click());
    await pageStatus().filter({ hasText: 'Page 2' }).waitFor();
    const second = await rows().evaluateAll((all) => all.map((row) => row.getAttribute('data-event-id')));
    expect(second).toHaveLength(PAGE_SIZE);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    const lastOfFirst = await timesOf();
    await loaded(() => next.click());
    await pageStatus().filter({ hasText: 'Page 3' }).waitFor();
    expect((await timesOf())[0] < (lastOfFirst.at(-1) as string)).toBe(true);

    await loaded(() => previous.click());
    await pageStatus().filter({ hasText: 'Page 2' }).waitFor();
    expect(await rows().evaluateAll((all) => all.map((row) => row.getAttribute('data-event-id')))).toEqual(second);
    await loaded(() => previous.click());
    await pageStatus().filter({ hasText: 'Page 1' }).waitFor();
    expect(await firstRowId()).toBe(first[0]);
    expect(await previous.isDisabled()).toBe(true);
  });

  it('is used with the keyboard alone: filters chosen and applied, pages turned', async () => {
    await openFeed('#/events');
    await settled();
    // The page's heading has focus on arrival; the first filter is the next stop.
    await tabTo(page.getByLabel('Event type', { exact: true }));
    // Down arrow on a closed select moves to the next option: "Block changed".
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    // On to the company number field, where Enter submits the form.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await loaded(() => page.keyboard.press('Enter'));
    expect(page.url()).toContain(encodeURIComponent('type=profile.changed&block=riskOfFailure'));
    expect(new Set(await column(4))).toEqual(new Set(['Risk of failure']));
    const firstOfPageOne = await firstRowId();

    // On by Tab past the buttons, the table's region and its links, to the pager's Next.
    await tabTo(page.getByRole('button', { name: /Next/ }));
    await loaded(() => page.keyboard.press('Enter'));
    await pageStatus().filter({ hasText: 'Page 2' }).waitFor();
    expect(await firstRowId()).not.toBe(firstOfPageOne);
    await tabBackTo(page.getByRole('button', { name: /Previous/ }));
    await loaded(() => page.keyboard.press('Space'));
    await pageStatus().filter({ hasText: 'Page 1' }).waitFor();
    expect(await firstRowId()).toBe(firstOfPageOne);
    expect(cspViolations).toEqual([]);
  });
});

const dayAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);
const timesOf = () =>
  table()
    .locator('tbody time')
    .evaluateAll((all) => all.map((each) => each.getAttribute('datetime') ?? ''));

async function checkPageAxeOnly(name: string): Promise<void> {
  expect(await axeViolations(page), `axe on ${name}`).toEqual([]);
  await screenshot(page, name);
}

/** Presses Tab until the element has focus (at most 200 times, as a person would go through the page). */
async function tabTo(target: ReturnType<Page['getByRole']>, key = 'Tab'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement)) return;
    await page.keyboard.press(key);
  }
  throw new Error(`${key} never reached the element`);
}

const tabBackTo = (target: ReturnType<Page['getByRole']>) => tabTo(target, 'Shift+Tab');

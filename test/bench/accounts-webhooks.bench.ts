import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveLocalTarget } from '../../cli/target';
import { demoAccountsCompanyOf, writeDemoAccountsZip } from '../../demo/accounts-filings';
import { startLocalRuntime } from '../../local/runtime';
import { requestToken } from '../../packages/client/src/index';
import type { AccountsImportReport } from '../../shared/accounts/import/import-filings';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { profileKey } from '../../shared/companies/search-index';
import { importProfiles } from '../../shared/register/import/import';
import { openImportFile } from '../../shared/register/import/import-sources';
import { batchGet } from '../../shared/storage/batch';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { companiesTable } from '../../shared/storage/tables';
import { BULK_HEADER, bulkRow } from '../../tools/register-files';
import { runCli } from '../support/cli';
import { startWebhookReceiver, untilQuiet, verifiedEvent } from '../support/webhook-receiver';
import { batchWriteItems } from './support/companies';
import type { BenchContext } from './support/context';
import { renderTable, throughputTable } from './support/table';

export const name =
  'Filed accounts: a day of accounts for watched companies through `bureau accounts import`, webhooks counted, then the same filings read again';

const SIZES = { small: 300, full: 2_000, million: 2_000 } as const;
const TODAY = '2026-11-27';
const CATEGORIES = ['MICRO ENTITY', 'TOTAL EXEMPTION FULL', 'UNAUDITED ABRIDGED', 'SMALL', 'FULL'];
const QUIET_MS = 4_000;

const cli = (dataDir: string, ...argv: string[]) => runCli(argv, () => resolveLocalTarget(dataDir));

export async function run(context: BenchContext): Promise<void> {
  const count = SIZES[context.scale];
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-accounts-webhooks-'));
  const receiver = await startWebhookReceiver();
  const runtime = await startLocalRuntime({
    port: 0,
    inMemory: true,
    dataDir,
    quiet: true,
    environment: {},
    sharedDynamoDb: { endpoint: context.env.DYNAMODB_ENDPOINT as string, tablePrefix: `aw-${randomUUID().slice(0, 8)}-` },
  });
  try {
    // Companies the register lists with accounts made up to last January, of every kind but dormant.
    const numbers = Array.from({ length: count }, (_, index) => String(31_000_000 + index));
    const snapshot = join(dataDir, 'BasicCompanyData-2026-11-01-part1_1.csv');
    const rows = numbers.map((number, index) =>
      bulkRow({
        name: `ACCOUNTS BENCH ${index} LIMITED`,
        number,
        category: 'Private Limited Company',
        status: 'Active',
        incorporatedOn: '2019-01-15',
        accountRefDay: 31,
        accountRefMonth: 1,
        accountsLastMadeUp: '2026-01-31',
        accountsNextDue: '2027-10-31',
        accountCategory: CATEGORIES[index % CATEGORIES.length] as string,
      }),
    );
    writeFileSync(snapshot, `${BULK_HEADER}\n${rows.join('\n')}\n`);
    const store = new DynamoCompanyStore(createDocumentClient(createDynamoClient(runtime.env)), runtime.tables.companies as string);
    await importProfiles((await openImportFile(snapshot)).records, store);
    const held = await store.getMany(numbers.map((companyNumber) => ({ jurisdiction: 'GB', companyNumber })));
    const companies = [...held.values()].flatMap((profile) => demoAccountsCompanyOf(profile) ?? []);
    const zip = await writeDemoAccountsZip(dataDir, companies, TODAY);
    context.log(`${zip.entries.length} filings generated for ${count} held companies (${zip.skipped.length} skipped)`);

    // The client watches every company and listens.
    const token = (
      await requestToken({
        baseUrl: runtime.baseUrl,
        clientId: runtime.demoClient.clientId,
        clientSecret: runtime.demoClient.clientSecret,
        timeoutMs: 60_000,
      })
    ).accessToken;
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${runtime.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    for (const number of numbers) await (await call(`/v1/profile/${number}?jurisdiction=GB`)).arrayBuffer();
    const subscribed = await call('/v1/webhooks', {
      method: 'POST',
      body: JSON.stringify({ name: 'Bench', url: `${receiver.url}/accounts` }),
    });
    const { signingSecret } = (await subscribed.json()) as { signingSecret: string };

    const importFile = async (path: string) => {
      const started = performance.now();
      const result = await cli(dataDir, 'accounts', 'import', path, '--json');
      const elapsedMs = performance.now() - started;
      if (result.code !== 0) throw new Error(`the accounts import failed: ${result.stderr}`);
      return { report: JSON.parse(result.stdout) as AccountsImportReport, elapsedMs };
    };

    // The day's accounts: every held company has new figures, and each webhook about them is justified.
    const first = await importFile(zip.path);
    await untilQuiet(receiver.deliveries, QUIET_MS, 300_000);
    const byBlock = new Map<string, number>();
    const announced = new Set<string>();
    for (const delivery of receiver.deliveries) {
      const event = await verifiedEvent(delivery, signingSecret);
      byBlock.set(`${event.type} ${event.block}`, (byBlock.get(`${event.type} ${event.block}`) ?? 0) + 1);
      if (event.block === 'overview') announced.add(String(event.data.companyNumber));
    }
    const afterFirst = receiver.deliveries.length;

    // The same filings again: the same file, then the same entries in the month's file. Any webhook now is false.
    const again = await importFile(zip.path);
    const monthly = join(dataDir, 'Bureau_Demo_Accounts-November2026.zip');
    copyFileSync(zip.path, monthly);
    const inMonth = await importFile(monthly);
    await untilQuiet(receiver.deliveries, QUIET_MS, 120_000);
    const falseAlerts = receiver.deliveries.length - afterFirst;

    context.report(
      renderTable(
        `A day of filed accounts for ${count} watched companies (demo filings in the register's iXBRL format)`,
        ['', 'count'],
        [
          ['filings read', String(first.report.filingsRead)],
          ['  companies updated', String(first.report.companiesUpdated)],
          ['  rejected', String(first.report.rejected)],
          ...[...byBlock.entries()].sort().map(([block, n]) => [`  webhooks: ${block}`, String(n)]),
          ['companies updated with no overview webhook (missed)', String(first.report.companiesUpdated - announced.size)],
          ['same file again: companies updated', String(again.report.companiesUpdated)],
          ['same filings in the month file: companies updated', String(inMonth.report.companiesUpdated)],
          ['webhooks after reading the same filings again (false, goal 0)', String(falseAlerts)],
        ],
      ),
    );

    // The import's rate against a bare BatchWriteItem of as many profile items into the same engine.
    const sample = await batchGet<Record<string, unknown>>(
      createDocumentClient(createDynamoClient(runtime.env)),
      runtime.tables.companies as string,
      numbers.slice(0, 50).map((number) => profileKey('GB', number)),
    );
    const baselineTables = await context.createTables([companiesTable]);
    const started = performance.now();
    await batchWriteItems(
      baselineTables.doc,
      baselineTables.names[companiesTable.id] as string,
      (function* () {
        for (let index = 0; index < count; index++) {
          yield { ...(sample[index % sample.length] as Record<string, unknown>), ...profileKey('GB', String(40_000_000 + index)) };
        }
      })(),
      8,
    );
    const baselineMs = performance.now() - started;
    const rate = (items: number, ms: number) => ({ items, elapsedMs: ms, itemsPerSecond: (items * 1000) / ms });
    context.report(
      throughputTable('The accounts import through the CLI into the running runtime', 'filings', [
        { label: 'baseline: as many profile items, BatchWriteItem 8 in flight', result: rate(count, baselineMs) },
        { label: 'bureau accounts import, new figures for every company', result: rate(first.report.filingsRead, first.elapsedMs) },
        { label: 'bureau accounts import, the same file again', result: rate(again.report.filingsRead, again.elapsedMs) },
      ]),
    );
  } finally {
    await runtime.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

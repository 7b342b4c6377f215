import { readdir, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import yauzl from 'yauzl';
import { type FilingOutcome, readAccountsFolder, readAccountsZip } from '../../shared/accounts';
import { type AccountsImportReport, accountsFeedOf, importAccountFilings } from '../../shared/accounts/import/import-filings';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import type { CliContext } from '../context';
import type { CliIo } from '../io';

const PROGRESS_INTERVAL_MS = 2000;
const REJECTS_SHOWN = 20;

/** Entries to read, from the zip's central directory or the folder's listing, so progress can say how far along it is. */
async function entriesIn(path: string, folder: boolean): Promise<number> {
  if (folder) return (await readdir(path, { withFileTypes: true })).filter((entry) => entry.isFile()).length;
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('not a zip'));
      resolve(zip.entryCount);
      zip.close();
    }),
  );
}

function progressLines(io: CliIo, total: number) {
  const started = Date.now();
  let last = started;
  return (report: AccountsImportReport) => {
    if (Date.now() - last < PROGRESS_INTERVAL_MS) return;
    last = Date.now();
    const rate = Math.round(report.filingsRead / Math.max((last - started) / 1000, 0.001));
    io.err(
      `progress: ${report.filingsRead} of ${total} entries (${Math.floor((100 * report.filingsRead) / Math.max(1, total))}%), ${rate} entries/s: ` +
        `${report.companiesUpdated} updated, ${report.unchanged} unchanged, ${report.notHeld} not held, ${report.rejected} rejected`,
    );
  };
}

function printReport(io: CliIo, archive: string, where: string, report: AccountsImportReport, seconds: number): void {
  io.out(`${archive} → ${where}: ${report.filingsRead} entries read in ${seconds.toFixed(1)} s`);
  io.out(`  ${report.companiesUpdated} companies updated (new figures)`);
  io.out(`  ${report.unchanged} unchanged (figures already held, or newer)`);
  io.out(`  ${report.notHeld} not held (filings for companies Bureau does not hold: skipped)`);
  io.out(`  ${report.rejected} rejected`);
  for (const reject of report.rejects.slice(0, REJECTS_SHOWN)) io.out(`    ${reject.entryName}: ${reject.reason}`);
  if (report.rejected > REJECTS_SHOWN)
    io.out(`    … and ${report.rejected - REJECTS_SHOWN} more (--json lists the first ${report.rejects.length})`);
}

/** `bureau accounts import`: a file (or folder) of the Accounts Data Product into the profiles Bureau holds. */
export function registerAccountsCommands(program: Command, context: CliContext): void {
  const accounts = program.command('accounts').description("filed accounts: figures from Companies House's Accounts Data Product");
  accounts
    .command('import')
    .description(
      'read a daily or monthly Accounts Data Product zip (or a folder of its entries) into the profiles of the companies Bureau holds',
    )
    .argument('<zipOrFolder>', 'Accounts_Bulk_Data-YYYY-MM-DD.zip, Accounts_Monthly_Data-MonthYYYY.zip, or a folder of .html/.xml entries')
    .option('--no-progress', 'do not print progress lines')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Each filing's figures go into its company's overview.financials when Bureau holds the company and
has no newer accounts for it; size, credit capacity and risk are derived again from them, and their
changes go out as webhooks. A filing for a company Bureau does not hold is counted and skipped; an
entry that is not a filing is rejected by name, and the rest of the file goes on.

Examples:
  $ bureau accounts import Accounts_Bulk_Data-2026-11-27.zip
  $ bureau accounts import ./accounts-folder --json`,
    )
    .action(async (path: string, options: { progress: boolean; json?: boolean }, command: Command) => {
      let folder: boolean;
      let total: number;
      try {
        folder = (await stat(path)).isDirectory();
        total = await entriesIn(path, folder);
      } catch (error) {
        return command.error(`error: cannot read ${path} as a zip or a folder: ${(error as Error).message}`, {
          exitCode: 1,
          code: 'bureau.accounts.unreadable',
        });
      }
      const target = await context.target();
      const store = new DynamoCompanyStore(target.doc, target.tables.companies);
      const archive = basename(path);
      const filings: AsyncIterable<FilingOutcome> = folder ? readAccountsFolder(path) : readAccountsZip(path);
      const started = Date.now();
      const report = await importAccountFilings(filings, store, {
        archive,
        feed: accountsFeedOf(archive),
        ...(options.progress && !options.json ? { onProgress: progressLines(context.io, total) } : {}),
      });
      if (options.json) context.io.out(JSON.stringify({ file: path, ...report }, null, 2));
      else printReport(context.io, archive, target.description, report, (Date.now() - started) / 1000);
      if (report.rejected > 0) {
        command.error(`error: ${report.rejected} entr${report.rejected === 1 ? 'y' : 'ies'} rejected; every other entry was read`, {
          exitCode: 1,
          code: 'bureau.accounts.rejected',
        });
      }
    });
}

import { copyFileSync, createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yazl from 'yazl';
import type { CompanyStore } from '../../shared/companies/company-store';
import { importProfiles } from '../../shared/register/import/import';
import { openImportFile } from '../../shared/register/import/import-sources';

export const ACCOUNTS_FIXTURES = join(import.meta.dirname, '../fixtures/accounts');

/**
 * Three of the real filings' companies as register rows: a full filer (08119445), a micro-entity
 * (14033910) and a dormant company (14068295). See the fixtures' README for what in them is the filings'.
 */
export const HELD_SNAPSHOT = join(ACCOUNTS_FIXTURES, 'BasicCompanyData-2023-03-01-part1_1.csv');

/** The held companies as a register snapshot of `asOf`, imported as the register import does. */
export async function holdCompanies(store: Pick<CompanyStore, 'saveMany'>, workDir: string, asOf = '2023-03-01'): Promise<void> {
  const path = join(workDir, `BasicCompanyData-${asOf}-part1_1.csv`);
  copyFileSync(HELD_SNAPSHOT, path);
  await importProfiles((await openImportFile(path)).records, store);
}

/** A daily file of every real filing in the fixtures (19) and one entry that is not a filing. */
export async function dailyAccountsFile(workDir: string, name = 'Accounts_Bulk_Data-2023-03-02.zip'): Promise<string> {
  const path = join(workDir, name);
  const zip = new yazl.ZipFile();
  for (const folder of ['filings', 'anomalies']) {
    for (const entry of readdirSync(join(ACCOUNTS_FIXTURES, folder)))
      zip.addBuffer(readFileSync(join(ACCOUNTS_FIXTURES, folder, entry)), entry);
  }
  zip.end();
  await new Promise<void>((resolve, reject) => zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject));
  return path;
}

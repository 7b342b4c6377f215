import { createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yazl from 'yazl';
import type { CompanyStore } from '../../shared/companies/company-store';
import { importProfiles } from '../../shared/register/import/import';
import { openImportFile } from '../../shared/register/import/import-sources';
import { BULK_HEADER, type BulkCompany, bulkRow } from '../../tools/register-files';

export const ACCOUNTS_FIXTURES = join(import.meta.dirname, '../fixtures/accounts');

/** Three of the real filings' companies as the register lists them: a full filer, a micro-entity, a dormant company. */
export const HELD_COMPANIES: readonly BulkCompany[] = [
  {
    name: 'FULL FIGURES LIMITED',
    number: '08119445',
    category: 'Private Limited Company',
    status: 'Active',
    incorporatedOn: '2012-06-25',
    accountCategory: 'FULL',
    accountsLastMadeUp: '2020-12-31',
  },
  {
    name: 'SHORT OF CASH LTD',
    number: '14033910',
    category: 'Private Limited Company',
    status: 'Active',
    incorporatedOn: '2022-04-07',
    accountCategory: 'MICRO ENTITY',
    accountsLastMadeUp: '2022-08-31',
  },
  {
    name: 'QUIET HOLDINGS LIMITED',
    number: '14068295',
    category: 'Private Limited Company',
    status: 'Active',
    incorporatedOn: '2022-04-26',
    accountCategory: 'DORMANT',
    accountsLastMadeUp: '2022-12-31',
  },
];

/** The held companies as a register snapshot of `asOf`, imported as the register import does. */
export async function holdCompanies(store: Pick<CompanyStore, 'saveMany'>, workDir: string, asOf = '2023-03-01'): Promise<void> {
  const path = join(workDir, `BasicCompanyData-${asOf}-part1_1.csv`);
  writeFileSync(path, `${BULK_HEADER}\n${HELD_COMPANIES.map(bulkRow).join('\n')}\n`);
  await importProfiles((await openImportFile(path)).records, store);
}

/** A daily file of every real filing in the fixtures (17) and one entry that is not a filing. */
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

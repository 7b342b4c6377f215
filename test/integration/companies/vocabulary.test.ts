import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { searchCompanies } from '../../../shared/companies/search';
import { variantsOf } from '../../../shared/companies/vocabulary';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';

let tables: TestTables;
let store: DynamoCompanyStore;
beforeAll(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
});

/** The vocabulary words a misspelt query word would be corrected from. */
async function candidatesFor(word: string): Promise<string[]> {
  const found = await store.variantWords('GB', variantsOf(word));
  return [...new Set([...found.values()].flat())].sort();
}

describe('the vocabulary behind spelling correction, on DynamoDB Local', () => {
  it('learns the words of new companies, saved one by one or in a batch', async () => {
    await store.save(profileContent({ companyNumber: '40000001', name: 'Kings Logistics Services Ltd' }));
    await store.saveMany([
      profileContent({ companyNumber: '40000002', name: 'Northern Logistics Ltd' }),
      profileContent({ companyNumber: '40000003', name: 'Gencell Recruitment Ltd' }),
    ]);

    expect(await candidatesFor('logistcis')).toContain('logistics');
    expect(await candidatesFor('recruitent')).toContain('recruitment');
  });

  it('follows renames: a word leaves the vocabulary with its last company, and stays while another has it', async () => {
    await store.save(profileContent({ companyNumber: '40000011', name: 'Quarrymen Haulage Ltd' }));
    await store.save(profileContent({ companyNumber: '40000012', name: 'Quarrymen Freight Ltd' }));

    await store.save(profileContent({ companyNumber: '40000011', name: 'Stonecutters Haulage Ltd' }));
    const afterFirstRename = await candidatesFor('quarrymn');
    await store.save(profileContent({ companyNumber: '40000012', name: 'Stonecutters Freight Ltd' }));

    expect(afterFirstRename).toContain('quarrymen');
    expect(await candidatesFor('quarrymn')).not.toContain('quarrymen');
    expect(await candidatesFor('stonecuters')).toContain('stonecutters');
  });

  it('learns the words of a company another store instance saved, as a second import would', async () => {
    await new DynamoCompanyStore(tables.doc, tables.names.companies as string).save(
      profileContent({ companyNumber: '40000021', name: 'Whitewater Rafting Ltd' }),
    );

    expect(await candidatesFor('whitewatr')).toContain('whitewater');
  });

  it('lets search correct a typo against what the table holds', async () => {
    const page = await searchCompanies(store, { q: 'kings logistcis', jurisdiction: 'GB', limit: 10 });

    expect(page.items[0]).toMatchObject({ companyNumber: '40000001', match: { type: 'fuzzy' } });
    expect(page.suggestion).toBe('kings logistics');
  });
});

import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { searchCompanies } from '../../../shared/companies/search';
import { variantKey, variantsOf } from '../../../shared/companies/vocabulary';
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

  it('writes a word it already holds no more, even from another store instance, and mends one written only in part', async () => {
    await store.save(profileContent({ companyNumber: '40000031', name: 'Marmalade Orchards Ltd' }));
    const updates: string[] = [];
    const counted = DynamoDBDocumentClient.from(tables.client, { marshallOptions: { removeUndefinedValues: true } });
    counted.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand') updates.push(String((args.input as { Key?: { pk?: string } }).Key?.pk));
        return next(args);
      },
      { step: 'initialize' },
    );
    const second = new DynamoCompanyStore(counted, tables.names.companies as string);

    await second.save(profileContent({ companyNumber: '40000032', name: 'Marmalade Orchards Trading Ltd' }));
    expect(updates.filter((pk) => pk.includes('marmalade') || pk.includes('orchards'))).toEqual([]);
    expect(updates.length).toBeGreaterThan(0); // trading was new to the vocabulary

    // A word whose own key lacks it (its write failed after its variants') is written again in full.
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.names.companies,
        Key: variantKey('GB', 'marmalade'),
        UpdateExpression: 'DELETE words :word',
        ExpressionAttributeValues: { ':word': new Set(['marmalade']) },
      }),
    );
    updates.length = 0;
    await new DynamoCompanyStore(counted, tables.names.companies as string).save(
      profileContent({ companyNumber: '40000033', name: 'Marmalade Kitchens Ltd' }),
    );
    expect(updates.filter((pk) => pk.startsWith('D#GB#') && variantsOf('marmalade').some((v) => pk === `D#GB#${v}`)).length).toBe(
      new Set(variantsOf('marmalade')).size,
    );
    expect(await candidatesFor('marmalde')).toContain('marmalade');
  });

  it('lets search correct a typo against what the table holds', async () => {
    const page = await searchCompanies(store, { q: 'kings logistcis', jurisdiction: 'GB', limit: 10 });

    expect(page.items[0]).toMatchObject({ companyNumber: '40000001', match: { type: 'fuzzy' } });
    expect(page.suggestion).toBe('kings logistics');
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import type { Jurisdiction, ProfileContent } from '../../../shared/companies/profile';
import { InvalidCursorError, type SearchItem, searchCompanies, UnsearchableQueryError } from '../../../shared/companies/search';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';

let store: DynamoCompanyStore;

const companies: [Jurisdiction, string, string][] = [
  ['GB', '11000001', 'Harbour Lights Ltd'],
  ['GB', '11000002', 'HARBOUR LIGHTS LIMITED'],
  ['GB', '11000003', 'Harbour Lights Café Ltd'],
  ['GB', '11000004', 'Harbourside Lights Ltd'],
  ['GB', '11000005', 'The Harbour Lights Co Ltd'],
  ['GB', '11000006', 'Lights of the Harbour Ltd'],
  ['GB', '11000007', 'Harbour Views Ltd'],
  ['IE', '110001', 'Harbour Lights Teoranta'],
  ['GB', '11000009', 'Route 11000004 Ltd'],
  ['GB', '11000010', '11000010 Ltd'],
  ['GB', '11000020', 'A Plus Ltd'],
  ['GB', '11000021', 'Plus A Ltd'],
  ['GB', '11000022', 'Abacus Plus Ltd'],
  ...Array.from({ length: 45 }, (_, i): [Jurisdiction, string, string] => ['GB', String(12000000 + i), `Quay Works ${i} Ltd`]),
  ...Array.from({ length: 25 }, (_, i): [Jurisdiction, string, string] => ['GB', String(12100000 + i), `The Quay Works ${i} Ltd`]),
  ...Array.from({ length: 20 }, (_, i): [Jurisdiction, string, string] => ['GB', String(12200000 + i), `Quayside Works ${i}`]),
];

beforeAll(async () => {
  // Search needs no stream; stream records slow the shared DynamoDB Local down for every later test.
  const tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  const results = await store.saveMany(
    companies.map(([jurisdiction, companyNumber, name]) => profileContent({ jurisdiction, companyNumber, name })),
    { concurrency: 16 },
  );
  expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
});

/** A profile whose register entry lists former names, most recent first. */
function renamed(companyNumber: string, name: string, ...former: string[]): ProfileContent {
  const content = profileContent({ companyNumber, name });
  return {
    ...content,
    overview: { ...content.overview, previousNames: former.map((formerName) => ({ name: formerName, changedOn: '2023-05-01' })) },
  };
}

const summary = (items: readonly SearchItem[]) => items.map((item) => [item.companyNumber, item.match.type]);

async function everyPage(q: string, limit: number): Promise<{ items: SearchItem[]; pages: number }> {
  const items: SearchItem[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await searchCompanies(store, { q, jurisdiction: 'GB', limit, cursor });
    items.push(...page.items);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 100);
  return { items, pages };
}

describe('searchCompanies on DynamoDB Local', () => {
  it('ranks exact names first, then names starting with the query, then names whose words match', async () => {
    const page = await searchCompanies(store, { q: 'harbour lights', jurisdiction: 'GB', limit: 20 });

    expect(summary(page.items)).toEqual([
      ['11000001', 'exact'],
      ['11000002', 'exact'],
      ['11000003', 'name_prefix'],
      ['11000006', 'word_prefix'],
      ['11000005', 'word_prefix'],
      ['11000004', 'word_prefix'],
    ]);
    expect(page.items[0]).toEqual({
      companyNumber: '11000001',
      jurisdiction: 'GB',
      name: 'Harbour Lights Ltd',
      status: 'active',
      type: 'ltd',
      incorporatedOn: '2024-01-02',
      match: { type: 'exact' },
    });
    expect(page.items[5]?.match).toEqual({ type: 'word_prefix', on: ['harbourside', 'lights'] });
    expect(page.nextCursor).toBeUndefined();
  });

  it('searches one jurisdiction only', async () => {
    const page = await searchCompanies(store, { q: 'Harbour Lights', jurisdiction: 'IE', limit: 20 });

    expect(summary(page.items)).toEqual([['110001', 'exact']]);
  });

  it('folds case, accents, "&" and legal suffixes in the query as in names', async () => {
    const page = await searchCompanies(store, { q: 'HARBOUR-LIGHTS CAFE LIMITED', jurisdiction: 'GB', limit: 5 });

    expect(summary(page.items)).toEqual([['11000003', 'exact']]);
  });

  it('matches word prefixes of every query word, in any order', async () => {
    const page = await searchCompanies(store, { q: 'lig harb', jurisdiction: 'GB', limit: 20 });

    expect(page.items.map((item) => item.companyNumber).sort()).toEqual([
      '11000001',
      '11000002',
      '11000003',
      '11000004',
      '11000005',
      '11000006',
    ]);
    expect(page.items.every((item) => item.match.type === 'word_prefix')).toBe(true);
  });

  it('puts the company whose number the query is first, and shows it only once', async () => {
    const byNumber = await searchCompanies(store, { q: '11000004', jurisdiction: 'GB', limit: 10 });
    const numberAlsoName = await searchCompanies(store, { q: '11000010', jurisdiction: 'GB', limit: 10 });
    const shortNumber = await searchCompanies(store, { q: ' 11000004 ', jurisdiction: 'GB', limit: 10 });

    expect(summary(byNumber.items)).toEqual([
      ['11000004', 'company_number'],
      ['11000009', 'word_prefix'],
    ]);
    expect(summary(numberAlsoName.items)).toEqual([['11000010', 'company_number']]);
    expect(shortNumber.items[0]?.companyNumber).toBe('11000004');
  });

  it('matches one-character query words as whole words only', async () => {
    const twoWords = await searchCompanies(store, { q: 'a plus', jurisdiction: 'GB', limit: 10 });
    const oneLetter = await searchCompanies(store, { q: 'a.', jurisdiction: 'GB', limit: 10 });

    expect(summary(twoWords.items)).toEqual([
      ['11000020', 'exact'],
      ['11000021', 'word_prefix'],
    ]);
    expect(summary(oneLetter.items)).toEqual([
      ['11000020', 'name_prefix'],
      ['11000021', 'word_prefix'],
    ]);
  });

  it('pages through every tier with a cursor, without duplicates or gaps, in the same order as one big page', async () => {
    const whole = await searchCompanies(store, { q: 'quay works', jurisdiction: 'GB', limit: 100 });
    const paged = await everyPage('quay works', 7);

    expect(whole.items).toHaveLength(90);
    expect(whole.nextCursor).toBeUndefined();
    expect(paged.items.map((item) => item.companyNumber)).toEqual(whole.items.map((item) => item.companyNumber));
    expect(paged.pages).toBeGreaterThanOrEqual(13);
    expect(summary(whole.items).map(([, type]) => type)).toEqual([
      ...new Array(45).fill('name_prefix'),
      ...new Array(45).fill('word_prefix'),
    ]);
  });

  it('finds a renamed company by its new name only', async () => {
    await store.save(profileContent({ companyNumber: '11000030', name: 'Kestrel Mills Ltd' }));
    await store.save(profileContent({ companyNumber: '11000030', name: 'Osprey Mills Ltd' }));

    const byOldName = await searchCompanies(store, { q: 'kestrel', jurisdiction: 'GB', limit: 10 });
    const byNewName = await searchCompanies(store, { q: 'osprey mills', jurisdiction: 'GB', limit: 10 });

    expect(byOldName.items).toEqual([]);
    expect(summary(byNewName.items)).toEqual([['11000030', 'exact']]);
  });

  it('finds a company by a former name, says so, and stops when a save drops that name', async () => {
    await store.save(renamed('11000040', 'ZEPHYR HOLDINGS LTD', 'ACME WIDGETS LIMITED'));

    const byFormerName = await searchCompanies(store, { q: 'acme widgets', jurisdiction: 'GB', limit: 10 });
    const byFormerWords = await searchCompanies(store, { q: 'widgets acme', jurisdiction: 'GB', limit: 10 });
    const withTypo = await searchCompanies(store, { q: 'acme widgtes', jurisdiction: 'GB', limit: 10 });
    expect(byFormerName.items).toEqual([
      expect.objectContaining({
        companyNumber: '11000040',
        name: 'ZEPHYR HOLDINGS LTD',
        match: { type: 'exact' },
        matchedPreviousName: 'ACME WIDGETS LIMITED',
      }),
    ]);
    expect(summary(byFormerWords.items)).toEqual([['11000040', 'word_prefix']]);
    expect(withTypo.items[0]).toMatchObject({
      companyNumber: '11000040',
      match: { type: 'fuzzy' },
      matchedPreviousName: 'ACME WIDGETS LIMITED',
    });

    await store.save(renamed('11000040', 'ZEPHYR HOLDINGS LTD'));

    expect((await searchCompanies(store, { q: 'acme widgets', jurisdiction: 'GB', limit: 10 })).items).toEqual([]);
    expect((await searchCompanies(store, { q: 'widgets', jurisdiction: 'GB', limit: 10 })).items).toEqual([]);
    expect((await store.variantWords('GB', ['widgets'])).get('widgets') ?? []).not.toContain('widgets');
    const byName = await searchCompanies(store, { q: 'zephyr holdings', jurisdiction: 'GB', limit: 10 });
    expect(byName.items).toEqual([expect.objectContaining({ companyNumber: '11000040', match: { type: 'exact' } })]);
    expect(byName.items[0]).not.toHaveProperty('matchedPreviousName');
  });

  it('indexes the former names of new companies written in bulk, however many they have', async () => {
    const many = Array.from({ length: 12 }, (_, i) => `KESTREL ${i} FORMER NAME LTD`);
    const results = await store.saveMany([
      renamed('11000041', 'OSPREY TRADING LTD', 'MERLIN TRADING LTD'),
      renamed('11000042', 'GOSHAWK TRADING LTD', ...many),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);

    const merlin = await searchCompanies(store, { q: 'merlin trading', jurisdiction: 'GB', limit: 10 });
    const kestrel = await searchCompanies(store, { q: 'kestrel 3 former', jurisdiction: 'GB', limit: 10 });
    expect(merlin.items).toEqual([expect.objectContaining({ companyNumber: '11000041', matchedPreviousName: 'MERLIN TRADING LTD' })]);
    expect(kestrel.items).toEqual([
      expect.objectContaining({ companyNumber: '11000042', matchedPreviousName: 'KESTREL 3 FORMER NAME LTD' }),
    ]);

    await store.save(renamed('11000042', 'GOSHAWK TRADING LTD', 'PEREGRINE TRADING LTD'));

    expect((await searchCompanies(store, { q: 'kestrel', jurisdiction: 'GB', limit: 10 })).items).toEqual([]);
    expect(summary((await searchCompanies(store, { q: 'peregrine', jurisdiction: 'GB', limit: 10 })).items)).toEqual([
      ['11000042', 'name_prefix'],
    ]);
  });

  it('returns an empty page for a query nothing matches', async () => {
    expect(await searchCompanies(store, { q: 'zebra crossing', jurisdiction: 'GB', limit: 10 })).toEqual({ items: [] });
  });

  it('refuses a query with nothing to search for', async () => {
    await expect(searchCompanies(store, { q: '?! -- ...', jurisdiction: 'GB', limit: 10 })).rejects.toBeInstanceOf(UnsearchableQueryError);
  });

  it('refuses a cursor that was tampered with or belongs to another query', async () => {
    const first = await searchCompanies(store, { q: 'quay works', jurisdiction: 'GB', limit: 5 });
    const cursor = first.nextCursor as string;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...decoded, a: 'zzz#zzz#1' }), 'utf8').toString('base64url');

    for (const [q, bad] of [
      ['quay works', 'not a cursor!'],
      ['quay works', forged],
      ['quay works', Buffer.from('[1,2]').toString('base64url')],
      ['quay works', Buffer.from(JSON.stringify({ ...decoded, v: 1 })).toString('base64url')],
      ['quay works', Buffer.from(JSON.stringify({ ...decoded, t: 'everything' })).toString('base64url')],
      ['quay works', Buffer.from(JSON.stringify({ ...decoded, a: `quay works ${'z'.repeat(1100)}` })).toString('base64url')],
      ['harbour lights', cursor],
    ] as const) {
      await expect(searchCompanies(store, { q, jurisdiction: 'GB', limit: 5, cursor: bad })).rejects.toBeInstanceOf(InvalidCursorError);
    }
    await expect(searchCompanies(store, { q: 'quay works', jurisdiction: 'IE', limit: 5, cursor })).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
  });
});

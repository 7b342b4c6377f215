import { describe, expect, it } from 'vitest';
import { misspeltLegalForm } from '../../../shared/companies/names';
import { searchCompanies } from '../../../shared/companies/search';
import { MemoryNameIndex } from '../../support/memory-name-index';
import { profileContent } from '../../support/profile-fixture';

const names: [string, string][] = [
  ['60000001', 'ACME WIDGETS LIMITED'],
  ['60000002', 'BRYN MAWR CYFYNGEDIG'],
  ['60000003', 'TAI LLYN CYF.'],
  ['60000004', 'DYFI TRAFNIDIAETH CCC'],
  ['60000005', 'GLANNAU TEIFI PAC'],
  ['60000006', 'MENTER CWM GWENDRAETH CWMNI BUDDIANT CYMUNEDOL'],
  ['60000007', 'ACME LED LIGHTING LTD'],
  ['60000008', 'LIMITED EDITIONS LTD'],
];
const index = new MemoryNameIndex(names.map(([companyNumber, name]) => profileContent({ companyNumber, name })));
const search = (q: string) => searchCompanies(index, { q, jurisdiction: 'GB', limit: 10 });
const found = async (q: string) => (await search(q)).items.map((item) => item.companyNumber);

describe('a misspelt legal form', () => {
  it.each(['ACME WIDGETS LIMTIED', 'ACME WIDGETS LIMMITED', 'ACME WIDGETS LMIITED', 'ACME WIDGETS LIMITD', 'acme widgets ltf'])(
    'does not sink the search: %s',
    async (q) => {
      expect((await found(q))[0]).toBe('60000001');
    },
  );

  it('is reported as a correction, and corrected in the suggestion', async () => {
    const page = await search('ACME WIDGETS LIMTIED');

    expect(page.items[0]?.match).toEqual({ type: 'fuzzy', on: ['acme', 'widgets'], corrected: [{ from: 'limtied', to: 'limited' }] });
    expect(page.suggestion).toBe('acme widgets limited');
  });

  it('finds names ending in a Welsh legal form with it, without it, and with a typo in it', async () => {
    for (const [number, withForm, without, typo] of [
      ['60000002', 'bryn mawr cyfyngedig', 'bryn mawr', 'BRYN MAWR CYFYNGEDGI'],
      ['60000003', 'tai llyn cyf', 'tai llyn', 'tai llyn cyff'],
      ['60000004', 'dyfi trafnidiaeth ccc', 'dyfi trafnidiaeth', 'dyfi trafnidiaeth cc'],
      ['60000005', 'glannau teifi pac', 'glannau teifi', 'glannau teifi pca'],
      [
        '60000006',
        'menter cwm gwendraeth cwmni buddiant cymunedol',
        'menter cwm gwendraeth',
        'menter cwm gwendraeth cwmni budiant cymunedol',
      ],
    ] as const) {
      expect(await found(withForm), withForm).toEqual([number]);
      expect(await found(without), without).toEqual([number]);
      expect((await found(typo))[0], typo).toBe(number);
    }
  });

  it('is only read into a query that matches nothing as typed', async () => {
    const page = await search('acme led');

    expect(page.items.map((item) => [item.companyNumber, item.match.type])).toEqual([['60000007', 'name_prefix']]);
  });

  it('keeps legal-form words that are part of the name', async () => {
    expect(await found('limited editions')).toEqual(['60000008']);
    expect((await found('limited editons'))[0]).toBe('60000008');
  });
});

describe('misspeltLegalForm', () => {
  it('reads the end of a query as a legal form with one edit in one of its words', () => {
    expect(misspeltLegalForm('acme widgets limtied')).toEqual({ rest: ['acme', 'widgets'], from: 'limtied', to: 'limited' });
    expect(misspeltLegalForm('menter cwmni budiant cymunedol')).toEqual({ rest: ['menter'], from: 'budiant', to: 'buddiant' });
    expect(misspeltLegalForm('acme holdings limited limted')).toEqual({ rest: ['acme', 'holdings'], from: 'limted', to: 'limited' });
  });

  it('leaves a query alone that does not end so, or that is nothing else', () => {
    expect(misspeltLegalForm('acme widgets')).toBeUndefined();
    expect(misspeltLegalForm('limtied')).toBeUndefined();
    expect(misspeltLegalForm('acme widgets limtd')).toBeUndefined();
  });
});

describe('a typo in a word too short for the vocabulary', () => {
  const shortIndex = new MemoryNameIndex(
    [
      ['61000001', 'CPA GATES LTD'],
      ['61000002', 'TECH GEEK 101 LTD'],
      ['61000003', 'FLEET AND FINESSE LTD'],
    ].map(([companyNumber, name]) => profileContent({ companyNumber: companyNumber as string, name: name as string })),
  );
  const shortSearch = (q: string) => searchCompanies(shortIndex, { q, jurisdiction: 'GB', limit: 10 });

  it('is corrected against the words of the names the other query words find', async () => {
    const page = await shortSearch('ca gates');

    expect(page.items[0]).toMatchObject({ companyNumber: '61000001', match: { type: 'fuzzy', corrected: [{ from: 'ca', to: 'cpa' }] } });
    expect(page.suggestion).toBe('cpa gates');
    expect((await shortSearch('tceh geek 101')).items[0]?.companyNumber).toBe('61000002');
    expect((await shortSearch('fleet adn finesse')).items[0]?.companyNumber).toBe('61000003');
  });

  it('needs another word to be found by', async () => {
    expect((await shortSearch('cpq')).items).toEqual([]);
  });
});

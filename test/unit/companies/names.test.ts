import { describe, expect, it } from 'vitest';
import { foldName, LEGAL_SUFFIXES, nameWords, normalizeName, normalizeQuery } from '../../../shared/companies/names';

describe('normalizeName', () => {
  it.each([
    // Apostrophes, straight and curly, disappear inside words
    ["O'BRIEN & SONS LTD", 'obrien and sons'],
    ['O’CONNORS HAIRDRESSERS LTD', 'oconnors hairdressers'],
    ['JEN’S AESTHETIC & WOMEN’S HEALTH HUB LTD', 'jens aesthetic and womens health hub'],
    // Accents and letters that do not decompose
    ['BUY BARÇA LIMITED', 'buy barca'],
    ['MARIËN ZATHE LIMITED', 'marien zathe'],
    ['HÆLIX LTD', 'haelix'],
    ['MOSTOSTAL ZABRZE REALIZACJE PRZEMYSŁOWE S.A.', 'mostostal zabrze realizacje przemyslowe sa'],
    ['KÖNIG DESIGN STUDIO LTD', 'konig design studio'],
    // Quotes, brackets, hyphens, slashes, digits
    ['"MTS SAFETY, TRAINING & RESCUE LTD"', 'mts safety training and rescue'],
    ['NEWTREND I.T. CONSULTANCY (UK) LIMITED', 'newtrend it consultancy uk'],
    ['FORGET-ME-NOT-ECO-SHOP LTD', 'forget me not eco shop'],
    ['24/7 REACTIVE MAINTENANCE LTD', '24 7 reactive maintenance'],
    ['HOPE YORKSH1RE LTD', 'hope yorksh1re'],
    ['684 LTD', '684'],
    // Dotted initials read as one word
    ['S.O.H.O. FILM PRODUCTION LTD', 'soho film production'],
    ['Y.H AIR CONDITIONING LIMITED', 'yh air conditioning'],
    // Overseas forms on the GB register
    ['SNOWHILL PROPCO S.À R.L.', 'snowhill propco'],
    ['"VINOSMITH, INC."', 'vinosmith'],
    ['STADA MEDICAL GMBH', 'stada medical'],
    // Irish forms
    ['DUBLIN WIDGETS DAC', 'dublin widgets'],
    ['BIA GAILLIMH TEORANTA', 'bia gaillimh'],
    ['TÓGÁIL CHORCAÍ CUIDEACHTA GHNÍOMHAÍOCHTA AINMNITHE', 'togail chorcai'],
    ['SLIGO TIDY TOWNS COMPANY LIMITED BY GUARANTEE', 'sligo tidy towns'],
    ['SLIGO TIDY TOWNS CLG', 'sligo tidy towns'],
    ['CORK HOLDINGS UNLIMITED COMPANY', 'cork holdings'],
    // Welsh forms
    ['CWMNI CYMRAEG CYFYNGEDIG', 'cwmni cymraeg'],
  ])('%j → %j', (name, normalized) => {
    expect(normalizeName(name)).toBe(normalized);
  });

  it('treats "&", "+" and "and" alike', () => {
    expect(normalizeName('SMITH & JONES LTD')).toBe(normalizeName('Smith and Jones Limited'));
    expect(normalizeName('SMITH+JONES LTD')).toBe(normalizeName('SMITH AND JONES LTD'));
  });

  it('treats the spellings of one legal form alike', () => {
    const spellings = ['ACME LIMITED', 'ACME LTD', 'Acme Ltd.', 'ACME L.T.D.'];
    expect(new Set(spellings.map(normalizeName))).toEqual(new Set(['acme']));
    expect(normalizeName('ACME PUBLIC LIMITED COMPANY')).toBe(normalizeName('ACME P.L.C.'));
    expect(normalizeName('ACME LIMITED LIABILITY PARTNERSHIP')).toBe(normalizeName('ACME LLP'));
  });

  it('strips stacked legal forms repeatedly', () => {
    expect(normalizeName('CLARA2020LIMITED LIMITED')).toBe('clara2020limited');
    expect(normalizeName('ACME HOLDINGS LIMITED LTD')).toBe('acme holdings');
    expect(normalizeName('GREEN ENERGY CIC LIMITED')).toBe('green energy');
  });

  it('keeps the last word of a name that is nothing but legal forms', () => {
    expect(normalizeName('LIMITED LTD')).toBe('limited');
    expect(normalizeName('LTD')).toBe('ltd');
    expect(normalizeName('PUBLIC LIMITED COMPANY')).toBe('public limited company');
  });

  it('strips legal forms only at the end', () => {
    expect(normalizeName('LIMITED EDITIONS LTD')).toBe('limited editions');
    expect(normalizeName('THE PLC FORUM LTD')).toBe('the plc forum');
  });

  it('keeps words that only look like a legal form', () => {
    expect(normalizeName('ACME PC')).toBe('acme pc');
    expect(normalizeName('SMITH & CO')).toBe('smith and co');
  });

  it('reduces punctuation-only names to nothing', () => {
    expect(normalizeName(' ... ')).toBe('');
    expect(normalizeName('')).toBe('');
  });
});

describe('foldName', () => {
  it('folds without stripping legal forms', () => {
    expect(foldName('Ó Sé & Ní Bhriain Teoranta')).toBe('o se and ni bhriain teoranta');
  });
});

describe('LEGAL_SUFFIXES', () => {
  it('is written in the folded spelling it is compared against', () => {
    expect(LEGAL_SUFFIXES.filter((suffix) => foldName(suffix) !== suffix)).toEqual([]);
  });
});

describe('normalizeQuery', () => {
  it('reduces a query the way names are reduced', () => {
    expect(normalizeQuery("o'brien & sons ltd")).toBe(normalizeName("O'BRIEN AND SONS LIMITED"));
  });

  it('leaves a fragment that is not a whole legal-form word', () => {
    expect(normalizeQuery('acme lim')).toBe('acme lim');
  });
});

describe('nameWords', () => {
  it('lists distinct words in first-seen order', () => {
    expect(nameWords('sheffield and sheffield and co')).toEqual(['sheffield', 'and', 'co']);
    expect(nameWords('')).toEqual([]);
  });
});

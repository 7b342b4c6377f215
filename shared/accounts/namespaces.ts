/**
 * The namespaces an accounts filing is read in. UK accounts have been tagged in three generations of
 * taxonomy since 2009, and each release moves its concepts to a namespace with a new date while
 * keeping their local names; filers also choose their own prefixes (uk-core, core, frs-core, ns5, e,
 * …). A concept is therefore known by its local name within a known namespace family, never by
 * prefix or year.
 */
export const XBRLI = 'http://www.xbrl.org/2003/instance';
export const XBRLDI = 'http://xbrl.org/2006/xbrldi';
export const ISO4217 = 'http://www.xbrl.org/2003/iso4217';
export const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
export const XHTML = 'http://www.w3.org/1999/xhtml';
/** Inline XBRL 1.0 (2008) and 1.1 (2013). */
export const INLINE_XBRL = new Set(['http://www.xbrl.org/2008/inlineXBRL', 'http://www.xbrl.org/2013/inlineXBRL']);

/** Which generation of UK taxonomy a namespace belongs to. */
export type TaxonomyGeneration =
  /** UK GAAP 2004 (pt:, gc:) with Companies House's abbreviated-accounts schema (ae:), in XBRL. */
  | 'uk-gaap-2004'
  /** UK GAAP 2009 (uk-gaap-pt:, uk-gaap-cd-bus:), used until FRS 102 replaced old UK GAAP. */
  | 'uk-gaap-2009'
  /** The FRC taxonomies for FRS 102, FRS 105 and FRS 101, 2014 to 2021 releases (uk-core:, uk-bus:, …). */
  | 'frc-2014'
  /** The FRC taxonomies from the 2022 release on (core:, bus:, …). */
  | 'frc-2022';

export interface KnownNamespace {
  readonly generation: TaxonomyGeneration;
  /** The release year, from the namespace's date. */
  readonly year: number;
}

const FRC = /^https?:\/\/xbrl\.frc\.org\.uk\/(?:[A-Za-z0-9-]+\/)?(\d{4})-\d{2}-\d{2}(?:\/[A-Za-z0-9-]+)?\/?$/;
const UK_GAAP_2009 =
  /^http:\/\/www\.xbrl\.org\/uk\/(?:gaap\/core|cd\/business|reports\/direp|reports\/aurep|reports\/accrep|gaap\/[a-z-]+|cd\/[a-z-]+)\/(\d{4})-\d{2}-\d{2}$/;
const UK_GAAP_2004 = /^http:\/\/www\.xbrl\.org\/uk\/fr\/(?:gaap\/pt|gcd)\/(\d{4})-\d{2}-\d{2}$/;
const COMPANIES_HOUSE_AE = /^http:\/\/www\.companieshouse\.gov\.uk\/ef\/xbrl\/(?:uk\/fr\/)?gaap\/ae\/(\d{4})-\d{2}-\d{2}$/;

const cache = new Map<string, KnownNamespace | null>();

/** The family a concept's namespace belongs to, or null for a namespace this reader does not know. */
export function knownNamespace(uri: string): KnownNamespace | null {
  const cached = cache.get(uri);
  if (cached !== undefined) return cached;
  let known: KnownNamespace | null = null;
  const frc = FRC.exec(uri);
  if (frc) {
    const year = Number(frc[1]);
    known = { generation: year >= 2022 ? 'frc-2022' : 'frc-2014', year };
  } else {
    const old = UK_GAAP_2009.exec(uri);
    if (old) known = { generation: 'uk-gaap-2009', year: Number(old[1]) };
    else {
      const oldest = UK_GAAP_2004.exec(uri) ?? COMPANIES_HOUSE_AE.exec(uri);
      if (oldest) known = { generation: 'uk-gaap-2004', year: Number(oldest[1]) };
    }
  }
  cache.set(uri, known);
  return known;
}

/** The transformation registries of Inline XBRL: 2008 (1.0), and 1 to 5 of 1.1. */
export const TRANSFORMATION_REGISTRIES = new Set([
  'http://www.xbrl.org/2008/inlineXBRL/transformation',
  'http://www.xbrl.org/inlineXBRL/transformation/2010-04-20',
  'http://www.xbrl.org/inlineXBRL/transformation/2011-07-31',
  'http://www.xbrl.org/inlineXBRL/transformation/2015-02-26',
  'http://www.xbrl.org/inlineXBRL/transformation/2020-02-12',
  'http://www.xbrl.org/inlineXBRL/transformation/2022-02-16',
]);

import { type Decimal, parseDecimal } from './decimal';

/**
 * The Inline XBRL transformation rules a UK filing uses, by local name: the same rule carries a new
 * name in later registries (numdotdecimal, num-dot-decimal), and software still writes the 2010
 * names (numcommadot). A rule this reader does not know makes the filing unreadable: guessing how
 * "1.234" was meant would turn thousands into units.
 */
type NumericRule = (text: string) => Decimal | null;

/** Thousands separated by anything, a dot before decimals. */
const dotDecimal: NumericRule = (text) => {
  const kept = text.replace(/[^0-9.]/g, '');
  return /\d/.test(kept) ? parseDecimal(kept) : null;
};

/** Thousands separated by anything, a comma before decimals. */
const commaDecimal: NumericRule = (text) => {
  const kept = text.replace(/[^0-9,]/g, '');
  return /\d/.test(kept) && (kept.match(/,/g)?.length ?? 0) <= 1 ? parseDecimal(kept.replace(',', '.')) : null;
};

/** A dash, a blank or a word standing for nothing: zero. */
const zero: NumericRule = () => parseDecimal('0');

const NUMERIC: Readonly<Record<string, NumericRule>> = {
  numdotdecimal: dotDecimal,
  'num-dot-decimal': dotDecimal,
  numcommadot: dotDecimal,
  numspacedot: dotDecimal,
  numcommadecimal: commaDecimal,
  'num-comma-decimal': commaDecimal,
  numdotcomma: commaDecimal,
  numspacecomma: commaDecimal,
  numcomma: commaDecimal,
  zerodash: zero,
  numdash: zero,
  'fixed-zero': zero,
};

/** Rules for text, dates and booleans: the reader keeps such values as written. */
const OTHER = new Set(['booleanfalse', 'booleantrue', 'fixed-false', 'fixed-true', 'fixed-empty', 'nocontent', 'calindaymonthyear']);

export type TransformationLookup =
  | { readonly kind: 'numeric'; readonly apply: NumericRule }
  | { readonly kind: 'other'; readonly constant?: string }
  | { readonly kind: 'unknown' };

export function transformation(localName: string): TransformationLookup {
  const numeric = NUMERIC[localName];
  if (numeric) return { kind: 'numeric', apply: numeric };
  if (localName === 'booleantrue' || localName === 'fixed-true') return { kind: 'other', constant: 'true' };
  if (localName === 'booleanfalse' || localName === 'fixed-false') return { kind: 'other', constant: 'false' };
  if (localName === 'nocontent' || localName === 'fixed-empty') return { kind: 'other', constant: '' };
  if (OTHER.has(localName) || localName.startsWith('date')) return { kind: 'other' };
  return { kind: 'unknown' };
}

/** An untransformed ix:nonFraction holds a plain decimal, spaces aside. */
export function plainNumber(text: string): Decimal | null {
  return parseDecimal(text.trim());
}

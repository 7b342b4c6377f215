import { type Decimal, parseDecimal } from './decimal';

/**
 * The Inline XBRL transformation rules a UK filing uses, by local name: the same rule carries a new
 * name in later registries (numdotdecimal, num-dot-decimal), and software still writes the 2010
 * names (numcommadot). A rule this reader does not know makes the filing unreadable: guessing how
 * "1.234" was meant would turn thousands into units.
 */
type NumericRule = (text: string) => Decimal | null;

/** The digits and the decimal separator (a character code) of a text, in order; nothing else. */
function digitsAndSeparator(text: string, separator: number): { kept: string; digits: number; separators: number } {
  let kept = '';
  let runStart = 0;
  let digits = 0;
  let separators = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57) digits++;
    else if (code === separator) separators++;
    else {
      if (index > runStart) kept += text.slice(runStart, index);
      runStart = index + 1;
    }
  }
  return { kept: runStart === 0 ? text : kept + text.slice(runStart), digits, separators };
}

/** Thousands separated by anything, a dot before decimals. */
const dotDecimal: NumericRule = (text) => {
  const { kept, digits } = digitsAndSeparator(text, 46 /* . */);
  return digits > 0 ? parseDecimal(kept) : null;
};

/** Thousands separated by anything, a comma before decimals. */
const commaDecimal: NumericRule = (text) => {
  const { kept, digits, separators } = digitsAndSeparator(text, 44 /* , */);
  return digits > 0 && separators <= 1 ? parseDecimal(separators === 0 ? kept : kept.replace(',', '.')) : null;
};

/** A dash, a blank or a word standing for nothing: zero. */
const zero: NumericRule = () => ({ negative: false, digits: '0', exponent: 0 });

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

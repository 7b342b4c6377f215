/**
 * Exact decimal arithmetic on the strings a filing writes: amounts are scaled by powers of ten and
 * turned into pence, and a float would round "0.29" or a nine-digit turnover on the way.
 */

/** A decimal as sign, digits and the position of the decimal point from the right. */
export interface Decimal {
  readonly negative: boolean;
  readonly digits: string;
  readonly exponent: number;
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * "1234.50" as a Decimal; null when the text is not a plain non-negative decimal: digits with an
 * optional fraction ("12", "12.", "12.5") or a fraction alone (".5"). Every figure passes here, so
 * it reads characters rather than running regular expressions.
 */
export function parseDecimal(text: string): Decimal | null {
  const length = text.length;
  let index = 0;
  while (index < length && isDigit(text.charCodeAt(index))) index++;
  const wholeEnd = index;
  let fraction = '';
  if (index < length) {
    if (text.charCodeAt(index) !== 46 /* . */) return null;
    const fractionStart = ++index;
    while (index < length && isDigit(text.charCodeAt(index))) index++;
    if (index < length || (wholeEnd === 0 && index === fractionStart)) return null;
    fraction = text.slice(fractionStart);
  } else if (wholeEnd === 0) return null;
  const whole = wholeEnd === 0 ? '0' : text.slice(0, wholeEnd);
  return normalize(false, whole + fraction, -fraction.length);
}

/** Leading zeros and the fraction's trailing zeros dropped; zero is always positive. */
function normalize(negative: boolean, raw: string, rawExponent: number): Decimal {
  let start = 0;
  while (start < raw.length - 1 && raw.charCodeAt(start) === 48) start++;
  let end = raw.length;
  let exponent = rawExponent;
  while (exponent < 0 && end - start > 1 && raw.charCodeAt(end - 1) === 48) {
    end--;
    exponent++;
  }
  const digits = start === 0 && end === raw.length ? raw : raw.slice(start, end);
  if (digits === '0') return { negative: false, digits: '0', exponent: 0 };
  return { negative, digits, exponent };
}

/** value × 10^power */
export function scaleDecimal(value: Decimal, power: number): Decimal {
  return normalize(value.negative, value.digits, value.exponent + power);
}

export function negateDecimal(value: Decimal): Decimal {
  return value.digits === '0' ? value : { ...value, negative: !value.negative };
}

export function decimalToString(value: Decimal): string {
  const sign = value.negative ? '-' : '';
  if (value.exponent >= 0) return sign + value.digits + '0'.repeat(value.exponent);
  const padded = value.digits.padStart(-value.exponent + 1, '0');
  return `${sign}${padded.slice(0, value.exponent)}.${padded.slice(value.exponent)}`;
}

export function decimalsEqual(a: Decimal, b: Decimal): boolean {
  return a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;
}

/**
 * The amount in hundredths (pence, cents) as a safe integer, a fraction of a penny rounded half away
 * from zero; null when it does not fit a JavaScript number exactly.
 */
export function toMinorUnits(value: Decimal): number | null {
  const hundredths = scaleDecimal(value, 2);
  const { digits, exponent } = hundredths;
  // Up to 15 digits a double holds every integer exactly: most amounts, without BigInt.
  if (digits.length + Math.max(exponent, 0) <= 15) {
    let minor: number;
    if (exponent >= 0) minor = Number(digits) * 10 ** exponent;
    else {
      const kept = digits.length + exponent;
      minor = kept > 0 ? Number(digits.slice(0, kept)) : 0;
      // Half away from zero: the first digit dropped decides.
      if (kept >= 0 && digits.charCodeAt(kept) >= 53 /* 5 */) minor += 1;
    }
    return hundredths.negative && minor !== 0 ? -minor : minor;
  }
  let whole: bigint;
  if (hundredths.exponent >= 0) whole = BigInt(hundredths.digits) * 10n ** BigInt(hundredths.exponent);
  else {
    const divisor = 10n ** BigInt(-hundredths.exponent);
    const digits = BigInt(hundredths.digits);
    whole = digits / divisor;
    if ((digits % divisor) * 2n >= divisor) whole += 1n;
  }
  const signed = hundredths.negative ? -whole : whole;
  if (signed > BigInt(Number.MAX_SAFE_INTEGER) || signed < BigInt(Number.MIN_SAFE_INTEGER)) return null;
  return Number(signed);
}

/** A plain number, for counts such as employees; null beyond what a double holds exactly. */
export function toNumber(value: Decimal): number | null {
  const result = Number(decimalToString(value));
  return Number.isFinite(result) ? result : null;
}

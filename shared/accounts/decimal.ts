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

const PLAIN = /^(\d+)(?:\.(\d*))?$|^\.(\d+)$/;

/** "1234.50" as a Decimal; null when the text is not a plain non-negative decimal. */
export function parseDecimal(text: string): Decimal | null {
  const match = PLAIN.exec(text);
  if (!match) return null;
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? match[3] ?? '';
  return normalize({ negative: false, digits: whole + fraction, exponent: -fraction.length });
}

function normalize(value: Decimal): Decimal {
  let digits = value.digits.replace(/^0+(?=\d)/, '');
  let exponent = value.exponent;
  while (exponent < 0 && digits.length > 1 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent++;
  }
  if (/^0+$/.test(digits)) return { negative: false, digits: '0', exponent: 0 };
  return { negative: value.negative, digits, exponent };
}

/** value × 10^power */
export function scaleDecimal(value: Decimal, power: number): Decimal {
  return normalize({ ...value, exponent: value.exponent + power });
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

/**
 * Numbers a function reads from its environment, checked once at cold start. `Number()` alone turns
 * "" into 0 and "5 days" into NaN, which a comparison then quietly treats as never or always; a value
 * read here is a finite number in its range, or the function does not start, and says which variable
 * is wrong.
 */

export interface NumberRange {
  /** Inclusive. */
  readonly min: number;
  /** Inclusive. */
  readonly max: number;
  /** Whole numbers only (counts, seconds, ports); otherwise a decimal is allowed (days compressed in a test). */
  readonly whole?: boolean;
}

export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}

/** Digits, an optional fraction and exponent: no sign, hex, "Infinity" or blank, which Number() reads too. */
const WHOLE = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?(e[+-]?\d+)?$/i;

function describe(range: NumberRange): string {
  return `${range.whole ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}`;
}

function parse(name: string, text: string, range: NumberRange, what = describe(range)): number {
  const trimmed = text.trim();
  const value = (range.whole ? WHOLE : DECIMAL).test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isFinite(value) || value < range.min || value > range.max) {
    throw new SettingError(`${name} must be ${what}, got "${text}"`);
  }
  return value;
}

/** The variable's number, or `fallback` when it is unset or blank. */
export function numberSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, range: NumberRange): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return parse(name, raw, range);
}

/**
 * The variable's comma-separated numbers, or `fallback` when it is unset or blank; `length`, when
 * given, is how many it must list.
 */
export function numberListSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: readonly number[],
  range: NumberRange & { readonly length?: number },
): readonly number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const what = `${range.length === undefined ? '' : `${range.length} `}${range.whole ? 'whole numbers' : 'numbers'}, comma-separated, from ${range.min} to ${range.max}`;
  const parts = raw.split(',');
  if (range.length !== undefined && parts.length !== range.length) throw new SettingError(`${name} must list ${what}, got "${raw}"`);
  return parts.map((part) => parse(name, part, range, `a list of ${what}`));
}

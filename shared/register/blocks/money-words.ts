import type { FiledAmount } from '../../companies/profile';

const SYMBOLS: Readonly<Record<string, string>> = { GBP: '£', EUR: '€' };

/** An amount as a person reads it in a driver: "£12,345", "-£1,200", "USD 5,000" (whole units, rounded toward zero). */
export function moneyWords({ amountMinor, currency }: FiledAmount): string {
  const whole = Math.trunc(Math.abs(amountMinor) / 100).toLocaleString('en-GB');
  const symbol = SYMBOLS[currency];
  const unsigned = symbol ? `${symbol}${whole}` : `${currency} ${whole}`;
  return amountMinor < 0 ? `-${unsigned}` : unsigned;
}

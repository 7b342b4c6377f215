import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AccountsFiling, FilingOutcome } from '../../../shared/accounts';

export const FILINGS = join(import.meta.dirname, '../../fixtures/accounts/filings');
export const ANOMALIES = join(import.meta.dirname, '../../fixtures/accounts/anomalies');

export const fixture = (name: string): Buffer => readFileSync(join(FILINGS, name));

export function accepted(outcome: FilingOutcome): AccountsFiling {
  if (!outcome.ok) expect.fail(`${outcome.entryName} was rejected: ${outcome.reason}`);
  return outcome.filing;
}

export function rejected(outcome: FilingOutcome): string {
  if (outcome.ok) expect.fail(`${outcome.filing.entryName} was read, not rejected`);
  return outcome.reason;
}

/** A figure with its single source, as the test tables write it. */
export const gbp = (amountMinor: number, concept: string, contextId: string, entryName: string) => ({
  amountMinor,
  currency: 'GBP',
  provenance: [{ entryName, concept, contextId, namespace: expect.any(String) }],
});

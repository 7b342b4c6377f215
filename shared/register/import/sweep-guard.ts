import type { Jurisdiction } from '../../companies/profile';

/**
 * A sweep marks every register profile a snapshot leaves out as removed, so a short or broken file
 * would empty a register. Two guards stand before it: a file that cannot be a snapshot (no rows,
 * dated after today) is refused before anything is written, and a snapshot sweeps only when it lists
 * at least this share of the jurisdiction's register profiles that are not already removed.
 */
export const SWEEP_MIN_COVERAGE = 0.9;

/** What a count over the companies table found: register profiles of a jurisdiction, by whether the snapshot listed them. */
export interface SnapshotCoverage {
  /** Register profiles the snapshot listed (their registerSnapshot is its date). */
  readonly listed: number;
  /** Register profiles it did not list and that are not already removed: those a sweep would mark. */
  readonly unlisted: number;
}

export type SweepDecision =
  | { readonly sweep: true; readonly coverage: number; readonly forced: boolean }
  | { readonly sweep: false; readonly coverage: number; readonly reason: string };

export const addCoverage = (parts: readonly SnapshotCoverage[]): SnapshotCoverage => ({
  listed: parts.reduce((sum, part) => sum + part.listed, 0),
  unlisted: parts.reduce((sum, part) => sum + part.unlisted, 0),
});

const percent = (share: number) => `${(100 * share).toFixed(1)} %`;

/** Whether the sweep may run: enough coverage, or an operator who named this jurisdiction to force it. */
export function decideSweep(input: {
  readonly jurisdiction: Jurisdiction;
  readonly coverage: SnapshotCoverage;
  readonly forceSweep?: string | undefined;
}): SweepDecision {
  const { listed, unlisted } = input.coverage;
  const total = listed + unlisted;
  const coverage = total === 0 ? 1 : listed / total;
  const forced = input.forceSweep === input.jurisdiction;
  if (coverage >= SWEEP_MIN_COVERAGE || forced) return { sweep: true, coverage, forced: forced && coverage < SWEEP_MIN_COVERAGE };
  return {
    sweep: false,
    coverage,
    reason:
      `the snapshot lists ${listed} of the ${total} ${input.jurisdiction} register profiles not already removed (${percent(coverage)}), ` +
      `under the ${percent(SWEEP_MIN_COVERAGE)} a sweep needs: no company was marked removed. ` +
      `If the register really lost that many, force it with --force-sweep ${input.jurisdiction} (or "forceSweep": "${input.jurisdiction}" in the execution's input)`,
  };
}

export class RefusedSnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedSnapshotError';
  }
}

/** Today in UTC, as the snapshot dates are written. */
export const todayOf = (now: Date = new Date()) => now.toISOString().slice(0, 10);

/** Refuses, before anything is written, a file that cannot be a register snapshot. */
export function assertPlausibleSnapshot(input: {
  readonly file: string;
  readonly records: number;
  readonly asOf?: string | undefined;
  readonly today?: string;
}): void {
  if (input.records === 0) throw new RefusedSnapshotError(`${input.file} holds no rows: refused, nothing was imported or marked removed`);
  assertNotFutureSnapshot(input.file, input.asOf, input.today);
}

/** Refuses a snapshot dated after today; its rows are counted later, as they are read. */
export function assertNotFutureSnapshot(file: string, asOf: string | undefined, today = todayOf()): void {
  if (asOf && asOf > today) {
    throw new RefusedSnapshotError(`${file} is dated ${asOf}, after today (${today}): refused, nothing was imported or marked removed`);
  }
}

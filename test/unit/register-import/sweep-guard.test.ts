import { describe, expect, it } from 'vitest';
import {
  assertPlausibleSnapshot,
  decideSweep,
  RefusedSnapshotError,
  SWEEP_MIN_COVERAGE,
} from '../../../shared/register/import/sweep-guard';

describe('the sweep guard', () => {
  it('sweeps a snapshot that lists at least 90 % of the register profiles not already removed', () => {
    expect(SWEEP_MIN_COVERAGE).toBe(0.9);
    expect(decideSweep({ jurisdiction: 'GB', coverage: { listed: 90, unlisted: 10 } })).toMatchObject({ sweep: true, forced: false });
    expect(decideSweep({ jurisdiction: 'GB', coverage: { listed: 0, unlisted: 0 } })).toMatchObject({ sweep: true });
  });

  it('refuses one that lists less, saying how much and how to force it', () => {
    const decision = decideSweep({ jurisdiction: 'IE', coverage: { listed: 89, unlisted: 11 } });

    expect(decision).toMatchObject({ sweep: false, coverage: 0.89 });
    expect(decision.sweep ? '' : decision.reason).toMatch(/lists 89 of the 100 IE register profiles .*89\.0 %.*--force-sweep IE/);
  });

  it('sweeps anyway when an operator names that jurisdiction, and only that one', () => {
    const coverage = { listed: 10, unlisted: 90 };

    expect(decideSweep({ jurisdiction: 'GB', coverage, forceSweep: 'GB' })).toMatchObject({ sweep: true, forced: true });
    expect(decideSweep({ jurisdiction: 'GB', coverage, forceSweep: 'IE' })).toMatchObject({ sweep: false });
  });

  it('refuses a file with no rows, or dated after today, before anything is written', () => {
    const today = '2026-11-28';

    expect(() => assertPlausibleSnapshot({ file: 'cro-companies-2024-06-01.csv', records: 0, asOf: '2024-06-01', today })).toThrow(
      RefusedSnapshotError,
    );
    expect(() => assertPlausibleSnapshot({ file: 'cro-companies-2099-01-01.csv', records: 7, asOf: '2099-01-01', today })).toThrow(
      /dated 2099-01-01, after today \(2026-11-28\)/,
    );
    expect(() => assertPlausibleSnapshot({ file: 'cro-companies-2026-11-28.csv', records: 7, asOf: today, today })).not.toThrow();
  });
});

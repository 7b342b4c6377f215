import type { Jurisdiction } from '../../shared/companies/profile';
import { observed } from '../../shared/observability/middleware';
import { countSnapshotCoverage, type SweepResult, sweepGoneCompanies } from '../../shared/register/import/gone-companies';
import { importDocumentClient } from '../../shared/register/import/import-client';
import type { SnapshotCoverage } from '../../shared/register/import/sweep-guard';
import { companiesTable, tableName } from '../../shared/storage/tables';

interface SweepEvent {
  readonly jurisdiction: Jurisdiction;
  readonly asOf: string;
  readonly segment: number;
  readonly totalSegments: number;
  /** Count what the snapshot covers (for the sweep guard) instead of marking anything. */
  readonly count?: boolean;
}

/** After a whole snapshot: one scan segment's register profiles counted for the sweep guard, or those the snapshot left out marked gone. */
const doc = importDocumentClient();
const table = tableName(companiesTable);

export const handler = observed<SweepEvent, SweepResult | SnapshotCoverage>(({ count, ...event }) =>
  count ? countSnapshotCoverage({ doc, tableName: table, ...event }) : sweepGoneCompanies({ doc, tableName: table, ...event }),
);

import type { Jurisdiction } from '../../shared/companies/profile';
import { observed } from '../../shared/observability/middleware';
import { type SweepResult, sweepGoneCompanies } from '../../shared/register/import/gone-companies';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { companiesTable, tableName } from '../../shared/storage/tables';

interface SweepEvent {
  readonly jurisdiction: Jurisdiction;
  readonly asOf: string;
  readonly segment: number;
  readonly totalSegments: number;
}

/** After a whole snapshot: one scan segment's companies the snapshot left out, marked gone. */
const doc = sharedDocumentClient();
const table = tableName(companiesTable);

export const handler = observed<SweepEvent, SweepResult>((event) => sweepGoneCompanies({ doc, tableName: table, ...event }));

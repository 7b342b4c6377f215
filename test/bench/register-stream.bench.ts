import { parse as parseLine } from 'csv-parse/sync';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { profileKey } from '../../shared/companies/search-index';
import { companiesHouseFacts } from '../../shared/register/companies-house-bulk';
import { type ImportRecord, importProfiles } from '../../shared/register/import/import';
import { registerDraft } from '../../shared/register/register-profile';
import { FieldRow, Header, type SnapshotFacts } from '../../shared/register/snapshot-facts';
import { createEventApplier } from '../../shared/register/stream/apply-events';
import type { StreamEvent, StreamName } from '../../shared/register/stream/stream-events';
import { batchGet } from '../../shared/storage/batch';
import { companiesTable } from '../../shared/storage/tables';
import { BULK_HEADER, syntheticBulkRows } from '../../tools/register-files';
import { batchWriteItems } from './support/companies';
import type { BenchContext } from './support/context';
import { renderTable, throughputTable } from './support/table';
import { timeThroughput } from './support/timing';

export const name =
  'Register stream: events through createEventApplier into DynamoDB Local beside bare BatchWriteItem of as many profile items';

const AS_OF = '2024-06-01';
/** Events per apply, as the consumer hands them over by default. */
const BATCH = 500;
const BASELINE_CONCURRENCY = 8;

const SIZES = {
  small: { held: 5_000, events: 20_000 },
  full: { held: 50_000, events: 200_000 },
  million: { held: 50_000, events: 200_000 },
} as const;

/**
 * The mix the companies stream sends, as far as Bureau sees it: most events are for companies it
 * does not hold; of the rest most change nothing (the profile restated, a repeated event), and a
 * few change a fact (an appointment, a charge, a new office, a late filing).
 */
const MIX = { notHeld: 0.6, unchanged: 0.3, duplicate: 0.05, changes: 0.05 } as const;

function* heldFacts(count: number): Generator<SnapshotFacts> {
  const header = (parseLine(BULK_HEADER) as string[][])[0] ?? [];
  const columns = new Header(new Map(header.map((column, index) => [column.trim(), index])));
  for (const row of syntheticBulkRows(count, 7, AS_OF)) {
    const fields = (parseLine(row) as string[][])[0] ?? [];
    yield companiesHouseFacts(
      new FieldRow(
        columns,
        fields.map((field) => field.trim()),
      ),
    );
  }
}

async function* records(facts: readonly SnapshotFacts[]): AsyncGenerator<ImportRecord> {
  for (const [index, fact] of facts.entries()) yield { line: index + 2, profile: registerDraft(fact, AS_OF) };
}

/** A deterministic generator, so every run applies the same events. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const ukToIso = (date: string | null) => (date ? `${date.slice(6, 10)}-${date.slice(3, 5)}-${date.slice(0, 2)}` : null);

function eventsFor(facts: readonly SnapshotFacts[], count: number): StreamEvent[] {
  const random = seeded(42);
  const events: StreamEvent[] = [];
  let timepoint = 1;
  let second = 0;
  const publishedAt = () => {
    second++;
    const hh = String(Math.floor(second / 3600) % 24).padStart(2, '0');
    const mm = String(Math.floor(second / 60) % 60).padStart(2, '0');
    const ss = String(second % 60).padStart(2, '0');
    return `2024-06-${String(2 + Math.floor(second / 86_400)).padStart(2, '0')}T${hh}:${mm}:${ss}`;
  };
  const at = (stream: StreamName, kind: string, uri: string, data: Record<string, unknown>): StreamEvent => ({
    stream,
    resourceKind: kind,
    resourceUri: uri,
    resourceId: uri,
    data,
    timepoint: timepoint++,
    publishedAt: publishedAt(),
    type: 'changed',
  });
  const restated = (fact: SnapshotFacts) =>
    at('companies', 'company-profile', `/company/${fact.companyNumber}`, {
      company_name: fact.name,
      company_status: fact.status.registerStatus === 'Active' ? 'active' : undefined,
      sic_codes: fact.sicCodes,
      accounts: {
        next_due: fact.accounts.nextDueOn,
        last_accounts: {
          made_up_to: fact.accounts.lastMadeUpTo,
          type: (fact.accounts.category ?? 'null').toLowerCase().replace(/ /g, '-'),
        },
      },
      confirmation_statement: { next_due: fact.statement.nextDueOn, last_made_up_to: fact.statement.lastMadeUpTo },
    });
  while (events.length < count) {
    const roll = random();
    const fact = facts[Math.floor(random() * facts.length)] as SnapshotFacts;
    if (roll < MIX.notHeld) {
      events.push(restated({ ...fact, companyNumber: String(90_000_000 + Math.floor(random() * 9_000_000)) }));
    } else if (roll < MIX.notHeld + MIX.unchanged) {
      events.push(restated(fact));
    } else if (roll < MIX.notHeld + MIX.unchanged + MIX.duplicate && events.length > 0) {
      events.push({ ...(events[Math.floor(random() * events.length)] as StreamEvent), timepoint: timepoint++ });
    } else {
      const pick = Math.floor(random() * 4);
      const day = ukToIso(fact.accounts.nextDueOn) ?? '2024-06-01';
      events.push(
        pick === 0
          ? at('officers', 'company-officers', `/company/${fact.companyNumber}/appointments/${timepoint}`, {
              officer_role: 'director',
              appointed_on: `2024-06-${String(1 + (timepoint % 28)).padStart(2, '0')}`,
            })
          : pick === 1
            ? at('charges', 'company-charges', `/company/${fact.companyNumber}/charges/${timepoint}`, {
                charge_number: 100 + (timepoint % 50),
                status: 'outstanding',
                created_on: '2024-06-02',
              })
            : pick === 2
              ? at('companies', 'company-profile', `/company/${fact.companyNumber}`, {
                  registered_office_address: { address_line_1: `${timepoint} New Street`, locality: 'Leeds', postal_code: 'LS1 1AA' },
                })
              : at('filings', 'filing-history', `/company/${fact.companyNumber}/filing-history/${timepoint}`, {
                  category: 'accounts',
                  date: '2024-06-20',
                  description_values: { made_up_date: day },
                }),
      );
    }
  }
  return events;
}

export async function run(context: BenchContext): Promise<void> {
  const sizes = SIZES[context.scale];
  const tables = await context.createTables([companiesTable]);
  const table = tables.names[companiesTable.id] as string;
  const facts = [...heldFacts(sizes.held)];
  context.log(`importing ${sizes.held.toLocaleString('en-GB')} held companies`);
  const loaded = await importProfiles(records(facts), new DynamoCompanyStore(tables.doc, table));
  if (loaded.created !== sizes.held)
    throw new Error(`loaded ${loaded.created} of ${sizes.held}: ${JSON.stringify(loaded.errors.slice(0, 3))}`);
  const events = eventsFor(facts, sizes.events);

  const apply = createEventApplier({ doc: tables.doc, companiesTable: table });
  const totals = { applied: 0, unchanged: 0, skipped: 0 };
  const applied = await timeThroughput(events.length, async () => {
    for (let start = 0; start < events.length; start += BATCH) {
      const outcome = await apply('companies', events.slice(start, start + BATCH));
      totals.applied += outcome.applied;
      totals.unchanged += outcome.unchanged;
      totals.skipped += outcome.skipped;
      if (start % 20_000 === 0) context.log(`applied ${(start + BATCH).toLocaleString('en-GB')} events`);
    }
  });
  const again = await timeThroughput(events.length, async () => {
    for (let start = 0; start < events.length; start += BATCH) {
      const outcome = await apply('companies', events.slice(start, start + BATCH));
      if (outcome.applied > 0) throw new Error(`a replayed batch applied ${outcome.applied} events`);
    }
  });

  // The baseline: as many profile items as events, put with nothing read, checked or derived.
  const sample = await batchGet<Record<string, unknown>>(
    tables.doc,
    table,
    facts.slice(0, 100).map((fact) => profileKey('GB', fact.companyNumber)),
  );
  const baselineTables = await context.createTables([companiesTable]);
  const items = function* () {
    for (let index = 0; index < events.length; index++) {
      const item = sample[index % sample.length] as Record<string, unknown>;
      yield { ...item, ...profileKey('GB', String(10_000_000 + index)) };
    }
  };
  const baseline = await timeThroughput(events.length, () =>
    batchWriteItems(baselineTables.doc, baselineTables.names[companiesTable.id] as string, items(), BASELINE_CONCURRENCY),
  );

  context.report(
    throughputTable(
      `${events.length.toLocaleString('en-GB')} stream events against ${sizes.held.toLocaleString('en-GB')} held companies`,
      'events',
      [
        { label: `baseline: as many profile items, BatchWriteItem ${BASELINE_CONCURRENCY} in flight`, result: baseline },
        { label: `createEventApplier, batches of ${BATCH}, one after another`, result: applied },
        { label: 'the same events again (a replay: nothing to write)', result: again },
      ],
    ),
  );
  context.report(
    renderTable(
      'Outcomes of the first pass',
      ['', 'events'],
      [
        ['applied (a fact changed: one version-guarded write per company and batch)', String(totals.applied)],
        ['unchanged (held, nothing new)', String(totals.unchanged)],
        ['skipped (not held, or nothing Bureau reads)', String(totals.skipped)],
      ],
    ),
  );
}

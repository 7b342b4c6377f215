import { canonicalJson, type StoredDraft, type StoredFacts } from '../companies/company-store';
import {
  BLOCK_NAMES,
  type BlockName,
  type CompanyProfile,
  type Financials,
  type ProfileContent,
  type TradingStatus,
} from '../companies/profile';
import { profileOf } from '../companies/stored-profile';
import { registerCreditCapacity } from './blocks/credit-capacity';
import { registerSignals } from './blocks/early-signals';
import { registerFilingBehaviour } from './blocks/filing-behaviour';
import { registerOverview } from './blocks/overview';
import { BLOCK_COLUMNS, provenanceOf } from './blocks/provenance';
import { registerRisk } from './blocks/risk-of-failure';
import { COMPANIES_HOUSE_BULK_COLUMNS, companiesHouseFacts } from './companies-house-bulk';
import { ColumnRow, derivedAsOf, mergeFacts, snapshotInstant, storedColumns } from './facts-as-of';
import type { SnapshotFacts } from './snapshot-facts';

/** Stated in full in docs/profile.md, under its id. */
export const TRADING_STATUS_RULE = 'register-status-v1';

/** The stored profile comes from a later snapshot than the one being imported: importing would turn it back. */
export class LaterSnapshotStoredError extends Error {
  constructor(
    readonly stored: string,
    readonly importing: string,
  ) {
    super(`the stored profile comes from a later snapshot (${stored}) than this one (${importing})`);
    this.name = 'LaterSnapshotStoredError';
  }
}

/**
 * A block without what only says when and through which door it was derived (the date, the file or
 * feed), for telling whether its values changed: the same facts told by the stream are no change.
 * A risk score's history is the store's to keep, not a fact of the snapshot.
 */
function valuesOf(block: unknown): string {
  const {
    provenance,
    assessedOn: _assessedOn,
    previous: _previous,
    ...values
  } = block as { provenance?: { asOf?: string; source?: string }; assessedOn?: string; previous?: unknown };
  const { asOf: _asOf, source: _source, ...rest } = provenance ?? {};
  return canonicalJson({ ...values, provenance: rest });
}

const snapshotOfProfile = (profile: CompanyProfile) =>
  BLOCK_NAMES.reduce<string | undefined>((latest, block) => {
    const asOf = profile[block].provenance?.asOf;
    return asOf && (!latest || asOf > latest) ? asOf : latest;
  }, undefined);

/**
 * A company's profile from one register snapshot, every block derived from its facts by the rules
 * in docs/profile.md. `previous` is the stored profile: signals and late filings carry forward from
 * it, and a block whose values the new snapshot does not change is kept as it was, its asOf
 * included, so importing the same file again, or next month's file where nothing happened, writes
 * nothing.
 */
export function registerProfile(facts: SnapshotFacts, asOf: string, previous?: CompanyProfile, filed?: Financials): ProfileContent {
  const register = previous?.dataSource === 'register' ? previous : undefined;
  const stored = register && snapshotOfProfile(register);
  if (stored && stored > asOf) throw new LaterSnapshotStoredError(stored, asOf);

  // Figures come from filed accounts, not from the register's files: they carry forward until newer accounts are read.
  const financials = filed ?? register?.overview.financials;
  const overview = registerOverview(facts, asOf, financials);
  const tradingStatus: TradingStatus = {
    ...facts.status,
    provenance: provenanceOf(facts, asOf, TRADING_STATUS_RULE, BLOCK_COLUMNS.tradingStatus),
  };
  const filingBehaviour = registerFilingBehaviour(facts, asOf, register);
  const riskOfFailure = registerRisk(facts, filingBehaviour, asOf, financials);
  const creditCapacity = registerCreditCapacity(facts, financials, riskOfFailure, asOf);
  const earlySignals = registerSignals(facts, filingBehaviour, asOf, register);
  const blocks = { overview, tradingStatus, filingBehaviour, riskOfFailure, creditCapacity, earlySignals };
  if (register) {
    for (const block of BLOCK_NAMES) {
      if (valuesOf(blocks[block]) === valuesOf(register[block])) (blocks as Record<BlockName, unknown>)[block] = register[block];
    }
  }
  return { jurisdiction: facts.jurisdiction, companyNumber: facts.companyNumber, name: facts.name, dataSource: 'register', ...blocks };
}

/**
 * A snapshot's row over a stored profile the Streaming API has told newer facts of: each group of
 * the row's columns replaces the stored one only where the stored one is not newer than the
 * snapshot, and the blocks are derived as of the later of the snapshot and the stored derivation,
 * so the import moves nothing back in time.
 */
function mergedWithStream(facts: SnapshotFacts, asOf: string, current: StoredFacts) {
  const columns = storedColumns(current);
  if (!columns) return undefined;
  const row: Record<string, string | null> = {};
  for (const column of COMPANIES_HOUSE_BULK_COLUMNS) row[column] = facts.published.get(column);
  const merged = mergeFacts({ columns, state: current }, row, snapshotInstant(asOf));
  const derived = derivedAsOf(current);
  const date = derived && derived > asOf ? derived : asOf;
  const mergedFacts = {
    ...companiesHouseFacts(new ColumnRow({ ...merged.columns, CompanyNumber: facts.companyNumber })),
    unknownValues: facts.unknownValues,
  };
  return { content: registerProfile(mergedFacts, date, profileOf(current)), factsAsOf: merged.factsAsOf };
}

/** What an import saves for one row: derived from the stored profile at the moment of the write. */
export function registerDraft(facts: SnapshotFacts, asOf: string): StoredDraft {
  return {
    jurisdiction: facts.jurisdiction,
    companyNumber: facts.companyNumber,
    registerSnapshot: asOf,
    derive: (current) => registerProfile(facts, asOf, current),
    deriveStored: (current) => {
      if (current?.registerSnapshot && current.registerSnapshot > asOf) throw new LaterSnapshotStoredError(current.registerSnapshot, asOf);
      if (current?.factsAsOf && facts.source === 'companies-house-basic-company-data') {
        const merged = mergedWithStream(facts, asOf, current);
        if (merged) return merged;
      }
      return {
        content: registerProfile(facts, asOf, current && profileOf(current)),
        ...(current?.factsAsOf ? { factsAsOf: current.factsAsOf } : {}),
      };
    },
  };
}

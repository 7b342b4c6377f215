import { canonicalJson, type ProfileDraft } from '../../../../shared/companies/company-store';
import {
  BLOCK_NAMES,
  type BlockName,
  type CompanyProfile,
  type ProfileContent,
  type TradingStatus,
} from '../../../../shared/companies/profile';
import { registerCreditCapacity } from './blocks/credit-capacity';
import { registerSignals } from './blocks/early-signals';
import { registerFilingBehaviour } from './blocks/filing-behaviour';
import { registerOverview } from './blocks/overview';
import { BLOCK_COLUMNS, provenanceOf } from './blocks/provenance';
import { registerRisk } from './blocks/risk-of-failure';
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

/** A block without the dates that only say when it was derived, for telling whether its values changed. */
function valuesOf(block: unknown): string {
  const { provenance, assessedOn: _assessedOn, ...values } = block as { provenance?: { asOf?: string }; assessedOn?: string };
  const { asOf: _asOf, ...rest } = provenance ?? {};
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
export function registerProfile(facts: SnapshotFacts, asOf: string, previous?: CompanyProfile): ProfileContent {
  const register = previous?.dataSource === 'register' ? previous : undefined;
  const stored = register && snapshotOfProfile(register);
  if (stored && stored > asOf) throw new LaterSnapshotStoredError(stored, asOf);

  const overview = registerOverview(facts, asOf);
  const tradingStatus: TradingStatus = {
    ...facts.status,
    provenance: provenanceOf(facts, asOf, TRADING_STATUS_RULE, BLOCK_COLUMNS.tradingStatus),
  };
  const filingBehaviour = registerFilingBehaviour(facts, asOf, register);
  const riskOfFailure = registerRisk(facts, filingBehaviour, asOf);
  const creditCapacity = registerCreditCapacity(facts, overview.sizeBand, riskOfFailure, asOf);
  const earlySignals = registerSignals(facts, filingBehaviour, asOf, register);
  const blocks = { overview, tradingStatus, filingBehaviour, riskOfFailure, creditCapacity, earlySignals };
  if (register) {
    for (const block of BLOCK_NAMES) {
      if (valuesOf(blocks[block]) === valuesOf(register[block])) (blocks as Record<BlockName, unknown>)[block] = register[block];
    }
  }
  return { jurisdiction: facts.jurisdiction, companyNumber: facts.companyNumber, name: facts.name, dataSource: 'register', ...blocks };
}

/** What an import saves for one row: derived from the stored profile at the moment of the write. */
export function registerDraft(facts: SnapshotFacts, asOf: string): ProfileDraft {
  return {
    jurisdiction: facts.jurisdiction,
    companyNumber: facts.companyNumber,
    registerSnapshot: asOf,
    derive: (current) => registerProfile(facts, asOf, current),
  };
}

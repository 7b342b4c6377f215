import type { CompanyStore } from '../shared/companies/company-store';
import type { CompanyProfile, EarlySignal, Jurisdiction, ProfileContent, RiskOfFailure, TradingStatus } from '../shared/companies/profile';

/** The demo changes: each touches one block the way a real register or scoring update would. */
export const CHANGE_KINDS = ['risk', 'trading-status', 'new-signal', 'expire-signal'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

const RISK_LEVELS: readonly RiskOfFailure['level'][] = ['Low', 'Moderate', 'High', 'Severe'];
const RISK_SCORES: Record<RiskOfFailure['level'], number> = { Low: 12, Moderate: 38, High: 67, Severe: 89 };

/** The next level up, wrapping from Severe back to Low, so repeated changes keep changing. */
function nextRisk(current: RiskOfFailure, day: string): RiskOfFailure {
  const level = RISK_LEVELS[(RISK_LEVELS.indexOf(current.level) + 1) % RISK_LEVELS.length] as RiskOfFailure['level'];
  return { ...current, level, score: RISK_SCORES[level], assessedOn: day };
}

function nextTradingStatus(current: TradingStatus, day: string): TradingStatus {
  return current.status === 'active'
    ? { status: 'liquidation', registerStatus: 'Liquidation', since: day }
    : { status: 'active', registerStatus: 'Active', since: day };
}

/**
 * The profile after one demo change at `at`; the store gives it its next version and updatedAt. A
 * signal to expire is the oldest active one; a company with none gets one first (a detected event),
 * so the kind always changes something.
 */
export function changedProfile(content: ProfileContent, kind: ChangeKind, at: Date): ProfileContent {
  const day = at.toISOString().slice(0, 10);
  const instant = at.toISOString();
  switch (kind) {
    case 'risk':
      return { ...content, riskOfFailure: nextRisk(content.riskOfFailure, day) };
    case 'trading-status':
      return { ...content, tradingStatus: nextTradingStatus(content.tradingStatus, day) };
    case 'new-signal': {
      const signal: EarlySignal = {
        id: `sig-${content.companyNumber}-${at.getTime().toString(36)}`,
        kind: 'accounts_overdue',
        state: 'active',
        severity: 'warning',
        summary: 'Annual accounts are overdue',
        detectedAt: instant,
        updatedAt: instant,
      };
      return { ...content, earlySignals: { signals: [...content.earlySignals.signals, signal] } };
    }
    case 'expire-signal': {
      const active = content.earlySignals.signals.find((signal) => signal.state === 'active');
      if (!active) return changedProfile(content, 'new-signal', at);
      const signals = content.earlySignals.signals.map((signal) =>
        signal.id === active.id ? { ...signal, state: 'expired' as const, updatedAt: instant } : signal,
      );
      return { ...content, earlySignals: { signals } };
    }
  }
}

export class CompanyNotFoundError extends Error {
  constructor(
    readonly jurisdiction: string,
    readonly companyNumber: string,
  ) {
    super(`No company ${jurisdiction} ${companyNumber}`);
    this.name = 'CompanyNotFoundError';
  }
}

/** Applies one demo change to a stored company through the store, as an import of a changed profile would. */
export async function applyDemoChange(
  store: Pick<CompanyStore, 'get' | 'save'>,
  jurisdiction: Jurisdiction,
  companyNumber: string,
  kind: ChangeKind,
  at: Date = new Date(),
): Promise<CompanyProfile> {
  const current = await store.get(jurisdiction, companyNumber);
  if (!current) throw new CompanyNotFoundError(jurisdiction, companyNumber);
  const { version: _version, updatedAt: _updatedAt, ...content } = current;
  await store.save(changedProfile(content, kind, at));
  return (await store.get(jurisdiction, companyNumber)) as CompanyProfile;
}

import type { CompanyProfile, ProfileContent, RiskOfFailure } from './profile';

/**
 * The risk block with its history as the store keeps it: the score it replaced when the score moved,
 * the history already held when it did not. Derived from the stored profile at the moment of the
 * write, never taken from the input (an import cannot state a company's past), so the same content
 * written twice hashes the same and raises no change. `previous` stays absent, not null, until there
 * is one: a stored item written before the store kept history must not read as changed.
 */
export function withRiskHistory(
  content: ProfileContent,
  current: Pick<CompanyProfile, 'riskOfFailure'> | undefined,
  writtenAt: string,
): ProfileContent {
  const { previous: _stated, ...risk } = content.riskOfFailure;
  const before = current?.riskOfFailure;
  const previous =
    before === undefined ? undefined : before.score !== risk.score ? previousOf(before, writtenAt) : (before.previous ?? undefined);
  return { ...content, riskOfFailure: previous ? { ...risk, previous } : risk };
}

const previousOf = (risk: RiskOfFailure, replacedAt: string) => ({ level: risk.level, score: risk.score, replacedAt });

/** The risk block as the API shows it: `previous` always present, null before the score first moved. */
export const riskAsShown = (risk: RiskOfFailure): RiskOfFailure => ({ ...risk, previous: risk.previous ?? null });

/** Which way the score went at its last change; null when it has not changed while the store held it. */
export function riskTrend(risk: Pick<RiskOfFailure, 'score' | 'previous'>): 'up' | 'down' | null {
  if (!risk.previous) return null;
  return risk.score > risk.previous.score ? 'up' : 'down';
}

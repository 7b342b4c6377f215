import { describe, expect, it } from 'vitest';
import { riskAsShown, riskTrend, withRiskHistory } from '../../../shared/companies/risk-history';
import { profileContent } from '../../support/profile-fixture';

const content = profileContent({ companyNumber: '10000001', name: 'Trend Ltd' });
const risk = (score: number, level = content.riskOfFailure.level) => ({ ...content.riskOfFailure, score, level });
const AT = '2026-11-28T10:00:00.000Z';

describe('a risk score and the one it replaced', () => {
  it('has no previous score for a company written the first time, whatever the content states', () => {
    const stated = { ...content, riskOfFailure: { ...risk(40), previous: { level: 'High', score: 70, replacedAt: AT } as const } };
    expect(withRiskHistory(stated, undefined, AT).riskOfFailure).toEqual(risk(40));
    expect(withRiskHistory(stated, undefined, AT).riskOfFailure).not.toHaveProperty('previous');
  });

  it('records the score a moved score replaced, with the moment of the write', () => {
    const next = withRiskHistory({ ...content, riskOfFailure: risk(60, 'High') }, { riskOfFailure: risk(20, 'Low') }, AT);
    expect(next.riskOfFailure.previous).toEqual({ level: 'Low', score: 20, replacedAt: AT });
    expect(riskTrend(next.riskOfFailure)).toBe('up');
  });

  it('keeps the history it had while the score stays, and adds none where there was none', () => {
    const previous = { level: 'Low', score: 20, replacedAt: '2026-11-01T00:00:00.000Z' } as const;
    const held = { riskOfFailure: { ...risk(60, 'High'), previous } };
    expect(withRiskHistory({ ...content, riskOfFailure: risk(60, 'High') }, held, AT).riskOfFailure.previous).toEqual(previous);
    // Absent, not null: an item stored before history was kept must hash as it did.
    expect(withRiskHistory(content, { riskOfFailure: content.riskOfFailure }, AT).riskOfFailure).not.toHaveProperty('previous');
    expect(withRiskHistory(content, { riskOfFailure: { ...content.riskOfFailure, previous: null } }, AT).riskOfFailure).not.toHaveProperty(
      'previous',
    );
  });

  it('reads a fall as down, and no history as no trend', () => {
    expect(riskTrend({ score: 30, previous: { level: 'High', score: 70, replacedAt: AT } })).toBe('down');
    expect(riskTrend({ score: 30 })).toBeNull();
    expect(riskTrend({ score: 30, previous: null })).toBeNull();
  });

  it('shows null where the store keeps nothing', () => {
    expect(riskAsShown(risk(10)).previous).toBeNull();
  });
});

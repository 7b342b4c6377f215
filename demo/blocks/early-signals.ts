import type { EarlySignal, FilingBehaviour, Jurisdiction } from '../../shared/companies/profile';
import { addDays, addMonths, daysBetween, minDate } from '../../shared/register/calendar';
import { ENDED_STATUSES, INSOLVENT_STATUSES, isStrikeOffProposed } from '../../shared/register/statuses';
import { instantOn } from '../instants';
import { type Random, seededRandom } from '../random';
import type { RegisterFacts } from '../register-facts';

interface SignalKind {
  readonly kind: string;
  readonly severity: EarlySignal['severity'];
  readonly summary: string;
}

const EVENT_SIGNALS: Readonly<Record<Jurisdiction, readonly (readonly [SignalKind, number])[]>> = {
  GB: [
    [{ kind: 'director_appointed', severity: 'info', summary: 'A director was appointed' }, 4],
    [{ kind: 'director_resigned', severity: 'info', summary: 'A director resigned' }, 3],
    [{ kind: 'registered_office_changed', severity: 'info', summary: 'The registered office address changed' }, 3],
    [{ kind: 'psc_changed', severity: 'info', summary: 'A person with significant control changed' }, 2],
    [{ kind: 'sic_codes_changed', severity: 'info', summary: 'The nature of business changed' }, 1],
    [{ kind: 'charge_registered', severity: 'warning', summary: 'A charge over company assets was registered' }, 2],
    [{ kind: 'charge_satisfied', severity: 'info', summary: 'A charge was satisfied' }, 1],
    [{ kind: 'judgment_registered', severity: 'warning', summary: 'A county court judgment was registered against the company' }, 1],
  ],
  IE: [
    [{ kind: 'director_appointed', severity: 'info', summary: 'A director was appointed' }, 4],
    [{ kind: 'director_resigned', severity: 'info', summary: 'A director resigned' }, 3],
    [{ kind: 'registered_office_changed', severity: 'info', summary: 'The registered office address changed' }, 3],
    [{ kind: 'beneficial_owner_changed', severity: 'info', summary: 'A beneficial owner changed' }, 2],
    [{ kind: 'charge_registered', severity: 'warning', summary: 'A charge over company assets was registered' }, 2],
    [{ kind: 'charge_satisfied', severity: 'info', summary: 'A charge was satisfied' }, 1],
    [{ kind: 'judgment_registered', severity: 'warning', summary: 'A court judgment was registered against the company' }, 1],
  ],
};

/**
 * Register events, numbered sig-<number>-1, -2, … What signal n is depends on the company alone;
 * the seed only decides how many there are and their states, so a new seed replays the same
 * company with signals appearing or changing state, as a live feed would.
 */
export function eventSignals(facts: RegisterFacts, asOf: string, random: Random): EarlySignal[] {
  const ended = ENDED_STATUSES.has(facts.tradingStatus.status);
  const from = facts.incorporatedOn ?? addMonths(asOf, -60);
  const until = ended && facts.dissolvedOn ? minDate(facts.dissolvedOn, asOf) : asOf;
  const span = Math.max(0, daysBetween(from, until));
  const count = random.weighted([
    [0, 0.45],
    [1, 0.3],
    [2, 0.17],
    [3, 0.08],
  ]);

  const signals: EarlySignal[] = [];
  for (let n = 1; n <= count; n++) {
    const content = seededRandom(`${facts.jurisdiction}#${facts.companyNumber}#signal#${n}`);
    const { kind, severity, summary } = content.weighted(EVENT_SIGNALS[facts.jurisdiction]);
    const detectedOn = addDays(from, content.int(0, span));
    const detectedAt = instantOn(detectedOn, content);
    const state: EarlySignal['state'] = ended
      ? 'expired'
      : random.weighted([
          ['active', 0.7],
          ['superseded', 0.15],
          ['expired', 0.15],
        ]);
    const changedOn = state === 'active' ? detectedOn : addDays(detectedOn, random.int(0, Math.max(0, daysBetween(detectedOn, until))));
    const updatedAt = state === 'active' ? detectedAt : instantOn(changedOn, random);
    signals.push({
      id: `sig-${facts.companyNumber}-${n}`,
      kind,
      state,
      severity,
      summary,
      detectedAt,
      // biome-ignore lint/complexity/useMathMinMax: ISO instants compare as strings; Math.max would turn them into NaN.
      updatedAt: updatedAt < detectedAt ? detectedAt : updatedAt,
    });
  }
  return signals;
}

/** Signals that follow from the register status and the filing record; one id per kind. */
export function conditionSignals(facts: RegisterFacts, filing: FilingBehaviour, asOf: string, random: Random): EarlySignal[] {
  const { status, registerStatus } = facts.tradingStatus;
  const signal = (kind: string, severity: EarlySignal['severity'], summary: string, detectedOn: string): EarlySignal => {
    const detectedAt = instantOn(minDate(detectedOn, asOf), random);
    return { id: `sig-${facts.companyNumber}-${kind}`, kind, state: 'active', severity, summary, detectedAt, updatedAt: detectedAt };
  };
  const recently = () => addDays(asOf, -random.int(1, 90));

  const signals: EarlySignal[] = [];
  if (ENDED_STATUSES.has(status))
    signals.push(signal(status, 'critical', `The company is ${status} on the register`, facts.dissolvedOn ?? recently()));
  if (INSOLVENT_STATUSES.has(status) || status === 'voluntary_arrangement') {
    signals.push(signal('insolvency', 'critical', `Insolvency: ${registerStatus}`, recently()));
  }
  if (isStrikeOffProposed(facts.tradingStatus))
    signals.push(
      signal('strike_off_proposed', 'critical', 'A proposal to strike the company off the register has been published', recently()),
    );
  if (filing.accountsOverdue && filing.nextAccountsDueOn) {
    signals.push(
      signal(
        'accounts_overdue',
        'warning',
        `Accounts due on ${filing.nextAccountsDueOn} have not been filed`,
        addDays(filing.nextAccountsDueOn, 1),
      ),
    );
  }
  if (filing.confirmationStatementOverdue) {
    const statement = facts.jurisdiction === 'GB' ? 'confirmation statement' : 'annual return';
    signals.push(signal('confirmation_statement_overdue', 'warning', `The ${statement} is overdue`, recently()));
  }
  return signals;
}

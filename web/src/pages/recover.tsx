import { useState } from 'preact/hooks';
import { api } from '../api';
import { errorText, Status } from '../components';

/** The oldest instant a recovery reaches: dead deliveries are kept 14 days after their last attempt. */
const RECOVERY_DAYS = 14;
const HOUR_MS = 3600_000;

const CHOICES = [
  { label: 'the last 24 hours', hours: 24 },
  { label: 'the last 3 days', hours: 72 },
  { label: 'the last 7 days', hours: 168 },
  { label: 'the last 14 days', hours: RECOVERY_DAYS * 24 },
] as const;

/**
 * Sends again, with their original ids, the deliveries that ended without success since a time: after
 * an outage longer than the retry schedule, or once the subscription is enabled again. Every page of
 * the recovery is queued before it says how many; the delivery log, which refreshes itself, shows them go.
 */
export function Recover({ id, active }: { id: string; active: boolean }) {
  const [hours, setHours] = useState<number>(CHOICES[0].hours);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ message: string; tone: 'info' | 'error' }>();

  const recover = async () => {
    setBusy(true);
    setNotice(undefined);
    // A minute's margin inside the 14 days, so the oldest choice is never refused for a clock's difference.
    const since = new Date(Date.now() - Math.min(hours * HOUR_MS, RECOVERY_DAYS * 24 * HOUR_MS - 60_000)).toISOString();
    let queued = 0;
    try {
      let cursor: string | undefined;
      do {
        const page = await api.recover(id, since, cursor);
        queued += page.queued;
        cursor = page.nextCursor ?? undefined;
        if (cursor) setNotice({ message: `${queued} deliveries queued so far…`, tone: 'info' });
      } while (cursor);
      setNotice({
        message:
          queued === 0
            ? 'No delivery ended without success in that time.'
            : `${queued} ${queued === 1 ? 'delivery' : 'deliveries'} queued again with their original ids: they show in the log below as they are sent.`,
        tone: 'info',
      });
    } catch (error) {
      setNotice({ message: `${queued > 0 ? `${queued} queued, then: ` : ''}${errorText(error)}`, tone: 'error' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="recover">
      <h2 id="recover">Recover failed deliveries</h2>
      <p>
        Deliveries whose retries ran out, or that came while the endpoint was disabled, are kept for {RECOVERY_DAYS} days. Send them again
        once your endpoint works.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          recover();
        }}
      >
        <label for="recover-since">Failed in</label>
        <select id="recover-since" value={hours} onChange={(e) => setHours(Number(e.currentTarget.value))}>
          {CHOICES.map((choice) => (
            <option key={choice.hours} value={choice.hours}>
              {choice.label}
            </option>
          ))}
        </select>
        <button type="submit" class="secondary" disabled={busy || !active}>
          {busy ? 'Recovering…' : 'Recover'}
        </button>
      </form>
      {active ? null : <p class="hint">Enable the subscription first: a disabled one cannot receive what is recovered.</p>}
      <Status message={notice?.message} tone={notice?.tone} />
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { type Attempt, api, type RevealedSubscription, type Subscription } from '../api';
import { DeliveriesChart } from '../chart';
import { CopyButton, errorText, PageTitle, Status, useAsync } from '../components';
import { when } from '../format';
import { navigate } from '../router';
import { FiltersForm } from './filters';
import { Recover } from './recover';
import { Health } from './webhooks';

/** While the page is open the log refreshes itself, so a test event shows up without a reload. */
const REFRESH_MS = 3_000;

export function WebhookPage({ id }: { id: string }) {
  const [subscription, setSubscription] = useState<RevealedSubscription>();
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [revealed, setRevealed] = useState(false);
  const [graceUntil, setGraceUntil] = useState<string>();

  useEffect(() => {
    api.webhook(id).then(setSubscription, (error) => setProblem(errorText(error)));
  }, [id]);

  const act = async (what: () => Promise<RevealedSubscription | undefined>, done: string) => {
    setProblem(undefined);
    setNotice(undefined);
    try {
      const changed = await what();
      if (changed) setSubscription(changed);
      setNotice(done);
    } catch (error) {
      setProblem(errorText(error));
    }
  };

  if (!subscription) return <Status message={problem ?? 'Loading…'} tone={problem ? 'error' : 'info'} />;
  const active = subscription.status === 'ACTIVE';
  return (
    <>
      <PageTitle>{subscription.name}</PageTitle>
      <p>
        <span class="url">{subscription.url}</span> <Health subscription={subscription} />
      </p>
      <Status message={notice} />
      <Status message={problem} tone="error" />

      <section aria-labelledby="secret">
        <h2 id="secret">Signing secret</h2>
        <p>Verify each webhook's signature with this secret (Standard Webhooks).</p>
        <p>
          <code class="secret">{revealed ? subscription.signingSecret : 'whsec_••••••••••••••••••••••••'}</code>{' '}
          <button type="button" class="secondary" onClick={() => setRevealed(!revealed)} aria-pressed={revealed}>
            {revealed ? 'Hide' : 'Reveal'}
          </button>{' '}
          <CopyButton text={subscription.signingSecret} label="Copy secret" />
        </p>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            act(async () => {
              const rotated = await api.rotateSecret(id);
              setGraceUntil(rotated.previousSigningSecretExpiresAt);
              setRevealed(true);
              return rotated;
            }, 'New secret issued.')
          }
        >
          Rotate secret
        </button>
        {graceUntil ? <p class="hint">The previous secret keeps signing beside the new one until {when(graceUntil)}.</p> : null}
      </section>

      <section aria-labelledby="settings">
        <h2 id="settings">Settings</h2>
        <EditForm subscription={subscription} onSave={(change) => act(() => api.changeWebhook(id, change), 'Saved.')} />
        <p class="actions">
          <button
            type="button"
            onClick={() => act(() => api.sendTest(id).then(() => undefined), 'Test event sent: it shows in the log below in a moment.')}
          >
            Send a test event
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() => act(() => api.changeWebhook(id, { status: active ? 'DISABLED' : 'ACTIVE' }), active ? 'Disabled.' : 'Enabled.')}
          >
            {active ? 'Disable' : 'Enable'}
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              if (window.confirm(`Delete "${subscription.name}"? It stops receiving webhooks at once, and cannot be undone.`)) {
                act(() => api.deleteWebhook(id).then(() => undefined), 'Deleted.').then(() => navigate('webhooks'));
              }
            }}
          >
            Delete
          </button>
        </p>
      </section>

      <section aria-labelledby="filters">
        <h2 id="filters">Filters</h2>
        <FiltersForm
          // Saved filters come back normalised (gb:1234567 as GB:01234567): the form starts again from them.
          key={JSON.stringify(subscription.filters)}
          subscription={subscription}
          onSave={(filters) =>
            act(() => api.changeWebhook(id, { filters }), filters ? 'Filters saved.' : 'Filters removed: every event is sent.')
          }
        />
      </section>

      <Recover id={id} active={active} />

      <Deliveries id={id} />
    </>
  );
}

function EditForm({ subscription, onSave }: { subscription: Subscription; onSave: (change: { name: string; url: string }) => void }) {
  const [name, setName] = useState(subscription.name);
  const [url, setUrl] = useState(subscription.url);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSave({ name, url });
      }}
    >
      <label for="edit-name">Name</label>
      <input id="edit-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="edit-url">Endpoint URL</label>
      <input id="edit-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <button type="submit" class="secondary">
        Save changes
      </button>
    </form>
  );
}

function Deliveries({ id }: { id: string }) {
  const [round, setRound] = useState(0);
  const log = useAsync(() => api.deliveries(id), [id, round]);
  const stats = useAsync(() => api.deliveryStats(id), [id, round]);
  const [outcome, setOutcome] = useState('');
  const [eventType, setEventType] = useState('');
  const [notice, setNotice] = useState<{ message: string; tone: 'info' | 'error' }>();

  useEffect(() => {
    const timer = window.setInterval(() => setRound((n) => n + 1), REFRESH_MS);
    return () => window.clearInterval(timer);
  }, []);

  const attempts = log.value?.items ?? [];
  const types = [...new Set(attempts.map((attempt) => attempt.eventType))].sort();
  const shown = attempts.filter(
    (attempt) => (outcome === '' || attempt.outcome === outcome) && (eventType === '' || attempt.eventType === eventType),
  );

  const retry = async (attempt: Attempt) => {
    try {
      await api.retry(id, attempt.deliveryId);
      setNotice({ message: `Delivery ${attempt.deliveryId} queued again.`, tone: 'info' });
      setRound((n) => n + 1);
    } catch (error) {
      setNotice({ message: errorText(error), tone: 'error' });
    }
  };

  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      {stats.value ? <DeliveriesChart days={stats.value.days} /> : null}
      <div class="filters">
        <label for="filter-outcome">Outcome</label>
        <select id="filter-outcome" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value)}>
          <option value="">All</option>
          <option value="delivered">Delivered</option>
          <option value="failed">Failed</option>
          <option value="dropped">Dropped</option>
        </select>
        <label for="filter-type">Event type</label>
        <select id="filter-type" value={eventType} onChange={(e) => setEventType(e.currentTarget.value)}>
          <option value="">All</option>
          {types.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <Status message={notice?.message} tone={notice?.tone} />
      {log.error ? <Status message={log.error} tone="error" /> : null}
      {log.value && shown.length === 0 ? <p>No delivery attempts{attempts.length > 0 ? ' match these filters' : ' yet'}.</p> : null}
      <ol class="attempts">
        {shown.map((attempt) => (
          <li key={`${attempt.deliveryId}-${attempt.attempt}`} class={`attempt ${attempt.outcome}`}>
            <p>
              <strong>{attempt.eventType}</strong>{' '}
              <span class={`badge ${attempt.outcome === 'delivered' ? 'good' : 'bad'}`}>{attempt.outcome}</span>
            </p>
            <dl class="facts">
              <dt>When</dt>
              <dd>{when(attempt.attemptedAt)}</dd>
              <dt>Attempt</dt>
              <dd>{attempt.attempt}</dd>
              <dt>Answer</dt>
              <dd>{attempt.httpStatus ?? attempt.error ?? '—'}</dd>
              <dt>Took</dt>
              <dd>{attempt.durationMs} ms</dd>
              {attempt.errorMessage ? (
                <>
                  <dt>Error</dt>
                  <dd>{attempt.errorMessage}</dd>
                </>
              ) : null}
              <dt>Next attempt</dt>
              <dd>{attempt.nextAttemptAt ? when(attempt.nextAttemptAt) : 'none'}</dd>
              <dt>Delivery</dt>
              <dd>
                <code>{attempt.deliveryId}</code>
              </dd>
            </dl>
            <ReceiverAnswer attempt={attempt} />
            <button type="button" class="secondary" onClick={() => retry(attempt)}>
              Retry delivery
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * The start of the body the endpoint answered, folded away until asked for. Shown as text: Preact escapes
 * it, so an answer made of markup or script is only ever read, never run.
 */
function ReceiverAnswer({ attempt }: { attempt: Attempt }) {
  if (attempt.responseBody === null) return null;
  return (
    <details class="answer">
      <summary>Answer body{attempt.responseBodyTruncated ? ' (its start)' : ''}</summary>
      {attempt.responseBody === '' ? <p class="hint">The body was empty.</p> : <pre class="code">{attempt.responseBody}</pre>}
      {attempt.responseBodyTruncated ? (
        <p class="hint">The body went on past this, or was cut short: only its first 2 KB are kept.</p>
      ) : null}
    </details>
  );
}

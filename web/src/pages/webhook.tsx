import { Fragment } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type Attempt, type AttemptFilter, api, type RevealedSubscription, type Subscription } from '../api';
import { DeliveriesChart } from '../chart';
import { CopyButton, errorText, PageTitle, Status, useAsync } from '../components';
import { when } from '../format';
import { Pager, usePagedList } from '../paging';
import { href, navigate } from '../router';
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
  // The log starts loading beside the subscription, not after it: its rows are what a person came to read.
  const log = useDeliveryLog(id);

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

      <Deliveries id={id} log={log} />
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

/** Rows a page of the log holds: bounded, whatever the traffic. */
const PAGE_SIZE = 50;
/** What a filtered page reads at most (the API's budget): the page says so when it ends there. */
const READ_BUDGET = '1,000';

const STATUSES = [
  ['delivered', 'Delivered'],
  ['failed', 'Failed'],
  ['dropped', 'Dropped'],
] as const;

/** A dotted name that may wrap after its dots (profile.early_signal.detected), so the table stays narrow. */
const breakable = (name: string) =>
  name.split('.').map((part, index) => (
    <Fragment key={`${index}-${part}`}>
      {index > 0 ? '.' : ''}
      {index > 0 ? <wbr /> : null}
      {part}
    </Fragment>
  ));

const badgeTone = (outcome: Attempt['outcome']) => (outcome === 'delivered' ? 'good' : outcome === 'failed' ? 'bad' : 'warn');
const rowKey = (attempt: Attempt) => `${attempt.deliveryId}-${attempt.attempt}`;

type DeliveryLog = ReturnType<typeof useDeliveryLog>;

function useDeliveryLog(id: string) {
  const [filter, setFilter] = useState<AttemptFilter>({});
  const load = useCallback((query: AttemptFilter, cursor?: string) => api.deliveries(id, query, cursor, PAGE_SIZE), [id]);
  const list = usePagedList<Attempt, AttemptFilter>(load, filter);
  return { filter, setFilter, list };
}

function Deliveries({ id, log: { filter, setFilter, list } }: { id: string; log: DeliveryLog }) {
  const [round, setRound] = useState(0);
  // The chart reads up to 5,000 attempts: it waits for the table's first rows rather than racing them.
  const [chartWanted, setChartWanted] = useState(false);
  useEffect(() => {
    if (!list.loading) setChartWanted(true);
  }, [list.loading]);
  const stats = useAsync(() => (chartWanted ? api.deliveryStats(id) : Promise.resolve(undefined)), [id, round, chartWanted]);
  const [open, setOpen] = useState<string>();
  const [notice, setNotice] = useState<{ message: string; tone: 'info' | 'error' }>();

  // New attempts arrive at the top: only the first page refreshes itself, so paging back through the log stays put.
  const onFirstPage = !list.hasPrevious;
  useEffect(() => {
    if (!onFirstPage) return;
    const timer = window.setInterval(() => {
      list.reload();
      setRound((n) => n + 1);
    }, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [onFirstPage, list.reload]);

  const retry = async (attempt: Attempt) => {
    try {
      await api.retry(id, attempt.deliveryId);
      setNotice({ message: `Delivery ${attempt.deliveryId} queued again.`, tone: 'info' });
      list.reload();
    } catch (error) {
      setNotice({ message: errorText(error), tone: 'error' });
    }
  };

  const filtered = filter.status !== undefined || filter.companyNumber !== undefined;
  const items = list.items;
  return (
    <section aria-labelledby="deliveries" class="delivery-log">
      <h2 id="deliveries">Deliveries</h2>
      {stats.value ? <DeliveriesChart days={stats.value.days} /> : null}
      <LogFilters filter={filter} onChange={setFilter} />
      <Status message={notice?.message} tone={notice?.tone} />
      {list.error ? <Status message={list.error} tone="error" /> : null}
      {!list.loading && !list.error && items.length === 0 ? (
        <p>{filtered ? 'No attempt on this page matches these filters.' : 'No delivery attempts yet.'}</p>
      ) : null}
      {filtered && list.hasNext && items.length < PAGE_SIZE ? (
        <p class="hint">This page shows the matches among the {READ_BUDGET} attempts read for it; Next continues with older attempts.</p>
      ) : null}
      {items.length > 0 ? (
        // biome-ignore lint/a11y/useSemanticElements: the scrolling box is a named region, as the pattern for wide tables asks
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled without a mouse
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Delivery attempts">
          <table>
            <caption>Delivery attempts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Company</th>
                <th scope="col">Block</th>
                <th scope="col">Status</th>
                <th scope="col">Attempt</th>
                <th scope="col">Answer</th>
                <th scope="col">Took</th>
              </tr>
            </thead>
            <tbody>
              {items.map((attempt) => (
                <AttemptRows
                  key={rowKey(attempt)}
                  attempt={attempt}
                  open={open === rowKey(attempt)}
                  onToggle={() => setOpen(open === rowKey(attempt) ? undefined : rowKey(attempt))}
                  onRetry={() => retry(attempt)}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager list={list} label="Delivery attempts pages" />
    </section>
  );
}

/** Status applies at once; a company number when the form is sent (Enter or Apply). */
function LogFilters({ filter, onChange }: { filter: AttemptFilter; onChange: (filter: AttemptFilter) => void }) {
  const [number, setNumber] = useState(filter.companyNumber ?? '');
  const [register, setRegister] = useState(filter.jurisdiction ?? '');
  const withCompany = (base: AttemptFilter): AttemptFilter => {
    const { companyNumber: _n, jurisdiction: _j, ...rest } = base;
    const trimmed = number.trim();
    if (trimmed === '') return rest;
    return { ...rest, companyNumber: trimmed, ...(register ? { jurisdiction: register as 'GB' | 'IE' } : {}) };
  };
  return (
    <form
      class="log-filters"
      aria-label="Filter the delivery attempts"
      onSubmit={(event) => {
        event.preventDefault();
        onChange(withCompany(filter));
      }}
    >
      <div class="field">
        <label for="filter-status">Status</label>
        <select
          id="filter-status"
          value={filter.status ?? ''}
          onChange={(event) => {
            const status = event.currentTarget.value as AttemptFilter['status'] | '';
            const { status: _s, ...rest } = filter;
            onChange(status ? { ...rest, status } : rest);
          }}
        >
          <option value="">Any</option>
          {STATUSES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-company">Company number</label>
        <input
          id="filter-company"
          value={number}
          maxLength={32}
          autoComplete="off"
          spellcheck={false}
          onInput={(event) => setNumber(event.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="filter-register">Register</label>
        <select id="filter-register" value={register} onChange={(event) => setRegister(event.currentTarget.value)}>
          <option value="">Either</option>
          <option value="GB">Great Britain</option>
          <option value="IE">Ireland</option>
        </select>
      </div>
      <button type="submit" class="secondary">
        Apply
      </button>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          setNumber('');
          setRegister('');
          onChange({});
        }}
      >
        Clear filters
      </button>
    </form>
  );
}

/** One attempt: its row, and below it, once opened, what the receiver answered and what can be done. */
function AttemptRows({ attempt, open, onToggle, onRetry }: { attempt: Attempt; open: boolean; onToggle: () => void; onRetry: () => void }) {
  const detailId = `attempt-${attempt.deliveryId}-${attempt.attempt}`;
  const company =
    attempt.companyNumber && attempt.jurisdiction ? { jurisdiction: attempt.jurisdiction, number: attempt.companyNumber } : undefined;
  return (
    <>
      <tr class={`attempt ${attempt.outcome}`}>
        <td class="nowrap">
          <button type="button" class="disclosure" aria-expanded={open} {...(open ? { 'aria-controls': detailId } : {})} onClick={onToggle}>
            <span aria-hidden="true">{open ? '▾' : '▸'}</span> {when(attempt.attemptedAt)}
          </button>
        </td>
        <td>{breakable(attempt.eventType)}</td>
        <td class="company">
          {company ? (
            <a href={href('companies', company.jurisdiction, company.number)}>
              {attempt.companyName ?? `${company.jurisdiction} ${company.number}`}
            </a>
          ) : (
            '—'
          )}
          {company && attempt.companyName ? <span class="company-number">{` ${company.jurisdiction} ${company.number}`}</span> : null}
        </td>
        <td>{attempt.block ?? '—'}</td>
        <td>
          <span class={`badge ${badgeTone(attempt.outcome)}`}>{attempt.outcome}</span>
        </td>
        <td class="number">{attempt.attempt}</td>
        <td class="answer-cell">{attempt.httpStatus ?? attempt.error ?? '—'}</td>
        <td class="number nowrap">{attempt.durationMs} ms</td>
      </tr>
      {open ? (
        <tr class={`attempt-detail ${attempt.outcome}`} id={detailId}>
          <td colSpan={8}>
            <dl class="facts">
              {attempt.errorMessage ? (
                <>
                  <dt>Error</dt>
                  <dd>{attempt.errorMessage}</dd>
                </>
              ) : null}
              <dt>Next attempt</dt>
              <dd>{attempt.nextAttemptAt ? when(attempt.nextAttemptAt) : 'none'}</dd>
              <dt>webhook-id</dt>
              <dd>
                <code>{attempt.deliveryId}</code>
              </dd>
              <dt>Idempotency key</dt>
              <dd>
                <code>{attempt.idempotencyKey}</code>
              </dd>
            </dl>
            <ReceiverAnswer attempt={attempt} />
            <button type="button" class="secondary" onClick={onRetry}>
              Retry delivery
            </button>
          </td>
        </tr>
      ) : null}
    </>
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

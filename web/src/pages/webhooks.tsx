import { useState } from 'preact/hooks';
import { ApiError, api, type Subscription } from '../api';
import { errorText, PageTitle, Status, useAsync } from '../components';
import { when } from '../format';
import { href, navigate } from '../router';
import { filtersSummary } from './filters';

export function Health({ subscription }: { subscription: Subscription }) {
  if (subscription.status === 'DISABLED') {
    return <span class="badge bad">Disabled{subscription.disabledReason ? `: ${subscription.disabledReason}` : ''}</span>;
  }
  if (subscription.failingSince) return <span class="badge warn">Failing since {when(subscription.failingSince)}</span>;
  return <span class="badge good">Active</span>;
}

export function Webhooks() {
  const list = useAsync(() => api.webhooks(), []);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('https://');
  const [problem, setProblem] = useState<{ message: string; field?: string }>();
  const [busy, setBusy] = useState(false);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const created = await api.createWebhook(name, url);
      navigate('webhooks', created.id);
    } catch (error) {
      setProblem({ message: errorText(error), ...(error instanceof ApiError && error.field ? { field: error.field } : {}) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <section aria-labelledby="registered">
        <h2 id="registered">Your endpoints</h2>
        {list.error ? <Status message={list.error} tone="error" /> : null}
        {list.value && list.value.items.length === 0 ? <p>None yet.</p> : null}
        <ul class="cards">
          {list.value?.items.map((subscription) => (
            <li key={subscription.id}>
              <a href={href('webhooks', subscription.id)}>{subscription.name}</a>
              <span class="url">{subscription.url}</span>
              <span class="hint">{filtersSummary(subscription.filters)}</span>
              <Health subscription={subscription} />
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="register">
        <h2 id="register">Register an endpoint</h2>
        <p>An https address on the public internet that answers a POST with a 2xx.</p>
        <form onSubmit={create}>
          <label for="webhook-name">Name</label>
          <input
            id="webhook-name"
            required
            maxLength={100}
            value={name}
            aria-invalid={problem?.field === 'name'}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <label for="webhook-url">Endpoint URL</label>
          <input
            id="webhook-url"
            type="url"
            inputMode="url"
            required
            value={url}
            aria-invalid={problem?.field === 'url'}
            aria-describedby="create-problem"
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            Register
          </button>
        </form>
        <div id="create-problem">
          <Status message={problem?.message} tone="error" />
        </div>
      </section>
    </>
  );
}

import { api, type SessionView } from '../api';
import { CopyButton, PageTitle, Status, useAsync } from '../components';
import { when } from '../format';
import { href } from '../router';
import { Passkeys } from './passkeys';
import { Health } from './webhooks';

export function Overview({ session, notice }: { session: SessionView; notice?: string }) {
  const webhooks = useAsync(() => api.webhooks(), []);
  const tokenUrl = `${window.location.origin}${session.tokenPath}`;
  const curl = `curl -s -X POST ${tokenUrl} \\\n  -H 'content-type: application/json' \\\n  -d '{"grant_type":"client_credentials","client_id":"${session.client.clientId}","client_secret":"your-client-secret"}'`;

  return (
    <>
      <PageTitle>Overview</PageTitle>
      {notice ? <Status message={notice} /> : null}
      <section aria-labelledby="api-access">
        <h2 id="api-access">API access</h2>
        <dl class="facts">
          <dt>Client id</dt>
          <dd>
            <code>{session.client.clientId}</code> <CopyButton text={session.client.clientId} label="Copy client id" />
          </dd>
          <dt>Token endpoint</dt>
          <dd>
            <code>{tokenUrl}</code>
          </dd>
        </dl>
        <p>
          Your systems trade the client id and its secret for a bearer token. The secret never appears here: your operator gave it to you
          once, and can issue a new one.
        </p>
        <p>An example token request:</p>
        <pre class="code">{curl}</pre>
        <CopyButton text={curl} label="Copy the example" />
        <p>
          Every route, schema and webhook is in the <a href="/workspace/reference/">API reference</a>, drawn from the OpenAPI document at{' '}
          <a href="/v1/openapi.json">
            <code>/v1/openapi.json</code>
          </a>
          .
        </p>
      </section>
      <section aria-labelledby="at-a-glance">
        <h2 id="at-a-glance">Webhooks at a glance</h2>
        {webhooks.error ? <Status message={webhooks.error} tone="error" /> : null}
        {webhooks.value?.items.length === 0 ? (
          <p>
            No webhook endpoints yet. <a href={href('webhooks')}>Register one</a> to hear when a company you fetched changes.
          </p>
        ) : null}
        <ul class="cards">
          {webhooks.value?.items.map((subscription) => (
            <li key={subscription.id}>
              <a href={href('webhooks', subscription.id)}>{subscription.name}</a>
              <span class="url">{subscription.url}</span>
              <Health subscription={subscription} />
              <span class="meta">Since {when(subscription.createdAt)}</span>
            </li>
          ))}
        </ul>
      </section>
      <Passkeys />
    </>
  );
}

import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { errorText, Status, useAsync } from '../components';
import { when } from '../format';

type Notice = { message: string; tone: 'info' | 'error' };

const promptClosed = (error: unknown) => error instanceof Error && error.name === 'NotAllowedError';

/**
 * The person's passkeys: each with its name, when it was added and last used, and a way to remove
 * it; and adding one, which asks them to confirm who they are (password or passkey) when their last
 * check is more than five minutes old.
 */
export function Passkeys() {
  const passkeys = useAsync(() => api.passkeys(), []);
  const [name, setName] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [password, setPassword] = useState('');
  const [notice, setNotice] = useState<Notice>();
  const [busy, setBusy] = useState(false);

  const add = async () => {
    const { challengeId, options } = await api.passkeyRegistrationOptions();
    const response = await startRegistration({ optionsJSON: options as never });
    await api.registerPasskey(challengeId, response, name.trim() || undefined);
    setName('');
    setNotice({ message: 'Passkey added: you can sign in with it from now on.', tone: 'info' });
    passkeys.reload();
  };

  const act = async (step: () => Promise<void>) => {
    setBusy(true);
    setNotice(undefined);
    try {
      await step();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'recent_check_required') {
        setConfirming(true);
        setNotice({ message: error.message, tone: 'info' });
      } else {
        setNotice({ message: promptClosed(error) ? 'The passkey prompt was closed.' : errorText(error), tone: 'error' });
      }
    } finally {
      setBusy(false);
    }
  };

  const confirmed = async () => {
    setConfirming(false);
    setPassword('');
    await add();
  };

  const confirmWithPassword = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await api.reauthenticate(password);
      await confirmed();
    });
  };

  const confirmWithPasskey = () =>
    act(async () => {
      const { challengeId, options } = await api.reauthenticationOptions();
      await api.reauthenticateWithPasskey(challengeId, await startAuthentication({ optionsJSON: options as never }));
      await confirmed();
    });

  const remove = (id: string, label: string) =>
    act(async () => {
      if (!window.confirm(`Remove the passkey "${label}"? It will no longer sign you in.`)) return;
      await api.removePasskey(id);
      setNotice({ message: `Passkey "${label}" removed.`, tone: 'info' });
      passkeys.reload();
    });

  const items = passkeys.value?.items ?? [];
  return (
    <section aria-labelledby="passkeys">
      <h2 id="passkeys">Passkeys</h2>
      <p>Sign in with your device's screen lock or a security key instead of your password.</p>
      {passkeys.error ? <Status message={passkeys.error} tone="error" /> : null}
      {passkeys.value && items.length === 0 ? <p>You have no passkeys.</p> : null}
      <ul class="cards" aria-label="Your passkeys">
        {items.map((passkey) => (
          <li key={passkey.id}>
            <strong>{passkey.name}</strong>
            <span class="meta">Added {when(passkey.createdAt)}</span>
            <span class="meta">{passkey.lastUsedAt ? `Last used ${when(passkey.lastUsedAt)}` : 'Never used'}</span>
            <button
              type="button"
              class="danger"
              aria-label={`Remove ${passkey.name}`}
              disabled={busy}
              onClick={() => remove(passkey.id, passkey.name)}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      {confirming ? (
        // Keyed apart, so the password field is never the name field reused with its attributes.
        <form key="confirm" onSubmit={confirmWithPassword} aria-labelledby="confirm-heading">
          <h3 id="confirm-heading">Confirm it is you</h3>
          <label for="confirm-password">Your password</label>
          <input
            id="confirm-password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <p class="actions">
            <button type="submit" disabled={busy}>
              Confirm and add the passkey
            </button>
            {items.length > 0 ? (
              <button type="button" class="secondary" disabled={busy} onClick={confirmWithPasskey}>
                Confirm with a passkey instead
              </button>
            ) : null}
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => {
                setConfirming(false);
                setNotice(undefined);
              }}
            >
              Cancel
            </button>
          </p>
        </form>
      ) : (
        <form
          key="add"
          onSubmit={(event) => {
            event.preventDefault();
            void act(add);
          }}
        >
          <label for="passkey-name">Name of the new passkey (optional)</label>
          <input id="passkey-name" maxLength={60} placeholder="Work laptop" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" class="secondary" disabled={busy}>
            Add a passkey
          </button>
        </form>
      )}
      <Status message={notice?.message} tone={notice?.tone} />
    </section>
  );
}

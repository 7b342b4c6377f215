import { useEffect, useState } from 'preact/hooks';
import { api, type SessionView } from '../api';
import { errorText, PageTitle, Status } from '../components';

export function AcceptInvitation({ token, onSignedIn }: { token: string; onSignedIn: (session: SessionView, notice?: string) => void }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  // The token is in the fragment only until it is read: out of the address bar and the history.
  useEffect(() => window.history.replaceState(null, '', `${window.location.pathname}#/invite`), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (password !== repeat) return setProblem('The two passwords differ.');
    setBusy(true);
    setProblem(undefined);
    try {
      const accepted = await api.acceptInvitation(token, password);
      const removed = accepted.passkeysRemoved;
      onSignedIn(
        accepted,
        removed > 0
          ? `Your password is set. ${removed === 1 ? 'Your passkey was' : `All ${removed} of your passkeys were`} removed: add one again if you wish.`
          : undefined,
      );
    } catch (error) {
      setProblem(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  if (token === '') {
    return (
      <main id="main" class="narrow">
        <PageTitle>This link is incomplete</PageTitle>
        <p>Open the whole link you were sent, or ask your operator for a new one.</p>
      </main>
    );
  }
  return (
    <main id="main" class="narrow">
      <PageTitle>Choose your password</PageTitle>
      <p>At least 12 characters and hard to guess: a few unrelated words work well.</p>
      <p>
        Setting a password here signs you out everywhere else and removes every passkey on your account, so that no one else who held them
        can still get in. You can add passkeys again afterwards.
      </p>
      <form onSubmit={submit}>
        <label for="new-password">New password</label>
        <input
          id="new-password"
          type="password"
          autocomplete="new-password"
          required
          minLength={12}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <label for="repeat-password">The same password again</label>
        <input
          id="repeat-password"
          type="password"
          autocomplete="new-password"
          required
          value={repeat}
          onInput={(e) => setRepeat(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Set password and sign in
        </button>
      </form>
      <Status message={problem} tone="error" />
    </main>
  );
}

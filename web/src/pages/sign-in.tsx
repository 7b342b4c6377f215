import { startAuthentication } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { api, type SessionView } from '../api';
import { errorText, PageTitle, Status } from '../components';

export function SignIn({ onSignedIn }: { onSignedIn: (session: SessionView) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      onSignedIn(await api.signIn(email, password));
    } catch (error) {
      setProblem(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  const withPasskey = async () => {
    setProblem(undefined);
    try {
      const { challengeId, options } = await api.passkeySignInOptions();
      const response = await startAuthentication({ optionsJSON: options as never });
      onSignedIn(await api.passkeySignIn(challengeId, response));
    } catch (error) {
      setProblem(error instanceof Error && error.name === 'NotAllowedError' ? 'The passkey prompt was closed.' : errorText(error));
    }
  };

  return (
    <main id="main" class="narrow">
      <PageTitle>Sign in to your Bureau workspace</PageTitle>
      <form onSubmit={submit}>
        <label for="email">E-mail address</label>
        <input id="email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="password">Password</label>
        <input
          id="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p>
        <button type="button" class="secondary" onClick={withPasskey}>
          Sign in with a passkey
        </button>
      </p>
      <Status message={problem} tone="error" />
      <p class="hint">New here? Your operator sends you a one-time link to set your password.</p>
    </main>
  );
}

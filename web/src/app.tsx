import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type SessionView } from './api';
import { errorText, Status } from './components';
import { AcceptInvitation } from './pages/accept-invitation';
import { AccountDisabled } from './pages/account-disabled';
import { CompanyPage } from './pages/company';
import { Events } from './pages/events';
import { Overview } from './pages/overview';
import { Portfolio } from './pages/portfolio';
import { SignIn } from './pages/sign-in';
import { WebhookPage } from './pages/webhook';
import { Webhooks } from './pages/webhooks';
import { href, navigate, useRoute } from './router';

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionView | null>();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    api.session().then(setSession, (error) => {
      if (error instanceof ApiError && error.status === 401) setSession(null);
      else setProblem(errorText(error));
    });
  }, []);

  const [notice, setNotice] = useState<string>();
  // What a followed link removed is said once, on the overview it leads to.
  useEffect(() => {
    if ((route[0] ?? 'overview') !== 'overview') setNotice(undefined);
  }, [route[0]]);
  const signedIn = (next: SessionView, message?: string) => {
    setSession(next);
    setNotice(message);
    navigate('overview');
  };

  if (route[0] === 'invite') return <AcceptInvitation token={route[1] ?? ''} onSignedIn={signedIn} />;
  if (session === undefined) return <Status message={problem ?? 'Loading…'} tone={problem ? 'error' : 'info'} />;
  if (session === null) return <SignIn onSignedIn={signedIn} />;

  const signOut = async (everywhere: boolean) => {
    try {
      await (everywhere ? api.signOutEverywhere() : api.signOut());
    } finally {
      setSession(null);
      navigate('sign-in');
    }
  };

  const [section = 'overview', id, number] = route;
  const disabled = session.client.status !== 'active';
  const nav = [
    ['overview', 'Overview'],
    ['webhooks', 'Webhooks'],
    ['portfolio', 'Portfolio'],
    ['events', 'Events'],
  ] as const;
  return (
    <>
      {/* A button, not a #main link: the fragment holds the page's route. */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header>
        <p class="brand">
          Bureau <span>{session.client.name ?? session.client.clientId}</span>
        </p>
        {!disabled && (
          <nav aria-label="Workspace">
            <ul>
              {nav.map(([target, label]) => (
                <li key={target}>
                  <a
                    href={href(target)}
                    aria-current={
                      section === target || (target === 'portfolio' && (section === 'companies' || section === 'watches'))
                        ? 'page'
                        : undefined
                    }
                  >
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <div class="who">
          <span>{session.person.email}</span>
          <button type="button" class="secondary" onClick={() => signOut(false)}>
            Sign out
          </button>
          <button type="button" class="secondary" onClick={() => signOut(true)}>
            Sign out everywhere
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {disabled ? (
          <AccountDisabled session={session} />
        ) : section === 'webhooks' && id ? (
          <WebhookPage id={id} />
        ) : section === 'webhooks' ? (
          <Webhooks />
        ) : section === 'portfolio' || section === 'watches' ? (
          <Portfolio filterText={section === 'portfolio' ? id : undefined} />
        ) : section === 'events' ? (
          <Events filterText={id} />
        ) : section === 'companies' && id && number ? (
          <CompanyPage jurisdiction={id} number={number} />
        ) : (
          <Overview session={session} {...(notice ? { notice } : {})} />
        )}
      </main>
    </>
  );
}

import type { SessionView } from '../api';
import { PageTitle } from '../components';

/** What a disabled client's people see instead of every other page: the API answers them nothing else. */
export function AccountDisabled({ session }: { session: SessionView }) {
  return (
    <>
      <PageTitle>This account is disabled</PageTitle>
      <p>
        Bureau has disabled the account of {session.client.name ?? session.client.clientId}: its API credentials are refused, no webhooks
        are delivered, and this workspace shows nothing until the account is enabled again.
      </p>
      <p>If you did not expect this, contact Bureau and give the client id {session.client.clientId}.</p>
    </>
  );
}

import { WORKSPACE_PATH } from './site-headers';

/**
 * The one-time link a person opens to set their password. The token rides in the fragment, which a
 * browser sends to no server and writes to no log; the app reads it, then drops it from the address.
 */
export const invitationLink = (origin: string, token: string) => `${origin.replace(/\/$/, '')}${WORKSPACE_PATH}/#/invite/${token}`;

export const workspaceUrl = (origin: string) => `${origin.replace(/\/$/, '')}${WORKSPACE_PATH}/`;

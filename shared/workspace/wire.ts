/*
 * The JSON of the workspace's own routes, typed once for the server and the app (see
 * shared/webhooks/wire.ts for the webhook shapes both use). Kept free of imports.
 */

/** Who is signed in, for which client, and what the app needs to act for them. */
export interface SessionView {
  readonly person: { readonly email: string };
  readonly client: { readonly clientId: string; readonly name: string | null; readonly status: 'active' | 'disabled' | null };
  /** Sent back in x-csrf-token on every change. */
  readonly csrfToken: string;
  readonly sessionExpiresAt: string;
  readonly tokenPath: string;
}

/** A followed sign-in link: the new session, and how many passkeys it removed. */
export interface AcceptedInvitationView extends SessionView {
  readonly passkeysRemoved: number;
}

/** One of the signed-in person's passkeys. */
export interface PasskeyView {
  /** The credential id (base64url): what `DELETE passkeys/{id}` names. */
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  /** The last sign-in or check made with it; null if never used since it was added. */
  readonly lastUsedAt: string | null;
}

/** Attempts of one UTC day by outcome, for the deliveries chart. */
export interface DayOfDeliveries {
  /** UTC date, YYYY-MM-DD. */
  readonly date: string;
  readonly delivered: number;
  readonly failed: number;
  readonly dropped: number;
}

/** A company the client's systems fetched, with its name when the company is known. */
export interface WatchedCompanyView {
  readonly jurisdiction: 'GB' | 'IE';
  readonly companyNumber: string;
  readonly name: string | null;
  readonly watchedSince: string;
  readonly lastFetchedAt: string;
}

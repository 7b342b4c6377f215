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

/**
 * One of the client's events in the workspace's feed: exactly an item of GET /v1/events, and the
 * company's name beside it (null when the company is not known here: the app shows its number).
 */
export interface EventRowView {
  readonly id: string;
  readonly type: string;
  readonly apiVersion: 'v1';
  readonly occurredAt: string;
  readonly idempotencyKey: string;
  readonly block: string | null;
  readonly data: { readonly jurisdiction: 'GB' | 'IE' | null; readonly companyNumber: string | null };
  readonly companyName: string | null;
}

/** The most severe of a company's active early signals. */
export interface PortfolioSignalView {
  readonly kind: string;
  readonly severity: 'info' | 'warning' | 'critical';
  readonly summary: string;
}

/** A company's risk and its trend: the score its last change replaced, and when (the profile's riskOfFailure.previous). */
export interface PortfolioRiskView {
  readonly level: RiskLevel;
  readonly score: number;
  /** Which way the score went at its last change; null when it has not changed while Bureau held the company. */
  readonly trend: 'up' | 'down' | null;
  readonly previous: { readonly level: RiskLevel; readonly score: number } | null;
  readonly changedAt: string | null;
}

type RiskLevel = 'Low' | 'Moderate' | 'High' | 'Severe';

/** One watched company in the portfolio table: its profile's figures, or nulls when its profile is not known. */
export interface PortfolioRowView {
  readonly jurisdiction: 'GB' | 'IE';
  readonly companyNumber: string;
  readonly name: string | null;
  readonly tradingStatus: { readonly status: string; readonly registerStatus: string } | null;
  readonly risk: PortfolioRiskView | null;
  readonly creditLimit: { readonly amountMinor: number; readonly currency: 'GBP' | 'EUR' } | null;
  /** Why the credit limit is null (the profile's reason code); null when there is a limit. */
  readonly noLimitReason: string | null;
  readonly activeSignals: number;
  readonly worstSignal: PortfolioSignalView | null;
  /** The profile's updatedAt. */
  readonly lastChange: string | null;
  readonly watchedSince: string;
  readonly lastFetchedAt: string;
}

/** A page of the portfolio: `matched` rows pass the filters among `watched`; `complete` is false past the bound. */
export interface PortfolioPageView {
  readonly items: readonly PortfolioRowView[];
  readonly nextCursor: string | null;
  readonly matched: number;
  readonly watched: number;
  readonly complete: boolean;
}

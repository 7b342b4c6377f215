/*
 * The JSON the API answers about webhooks, typed once: the API builds these shapes and the workspace
 * app reads them (with `import type`, so nothing of the server travels to the browser). Kept free of
 * imports for that reason.
 */

/** A subscription as the API shows it. */
export interface SubscriptionView {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly status: 'ACTIVE' | 'DISABLED';
  /** On an answer about this one subscription (create, read, change, rotate); never in a listing. */
  readonly signingSecret?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly disabledReason: string | null;
  readonly failingSince: string | null;
  /** Which events it receives; null: every event of the companies the client watches. */
  readonly filters: SubscriptionFiltersView | null;
  /** After a rotation: until when the previous secret keeps signing. */
  readonly previousSigningSecretExpiresAt?: string;
}

/** A subscription's filters: each list absent means every value. */
export interface SubscriptionFiltersView {
  readonly eventTypes?: readonly ('profile.changed' | 'profile.early_signal.detected' | 'profile.early_signal.updated')[];
  readonly blocks?: readonly string[];
  readonly jurisdictions?: readonly ('GB' | 'IE')[];
  readonly companies?: readonly string[];
}

/** A subscription with its signing secret: what an answer about one subscription carries. */
export type RevealedSubscriptionView = SubscriptionView & { readonly signingSecret: string };

/** One attempt in a subscription's delivery log; absent facts are null, so every item has the same fields. */
export interface DeliveryAttemptView {
  readonly deliveryId: string;
  readonly eventType: string;
  readonly idempotencyKey: string;
  /** The company and block the event names; null for a test event. */
  readonly jurisdiction: 'GB' | 'IE' | null;
  readonly companyNumber: string | null;
  readonly block: string | null;
  readonly attempt: number;
  readonly attemptedAt: string;
  readonly outcome: 'delivered' | 'failed' | 'dropped';
  readonly httpStatus: number | null;
  /** The first 2 KiB of the receiver's answer as UTF-8 text; null when it did not answer. */
  readonly responseBody: string | null;
  /** Whether the answer went on past responseBody (or was cut short); null when it did not answer. */
  readonly responseBodyTruncated: boolean | null;
  readonly error: string | null;
  readonly errorMessage: string | null;
  readonly durationMs: number;
  readonly nextAttemptAt: string | null;
}

/** A page of a listing and where the next one starts. */
export interface PageView<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

/**
 * An attempt as the workspace's delivery log shows it: with the name of the company its event names
 * (null for a test event, or a company not known here: the app shows its number).
 */
export interface DeliveryRowView extends DeliveryAttemptView {
  readonly companyName: string | null;
}

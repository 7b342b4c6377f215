import { randomBytes } from 'node:crypto';
import type { SubscriptionFilters } from './subscription-filters';

/** ACTIVE receives deliveries; DISABLED keeps its settings and receives nothing. */
export type SubscriptionStatus = 'ACTIVE' | 'DISABLED';
export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['ACTIVE', 'DISABLED'];

/**
 * A secret that signs deliveries, as it is kept: sealed (shared/crypto/secret-sealer.ts), opened only
 * where it signs or is shown. After a rotation the previous one signs beside the new until it expires.
 */
export interface SealedSigningSecret {
  readonly sealed: string;
  readonly createdAt: string;
  /** ISO instant after which it no longer signs; absent on the newest secret. */
  readonly expiresAt?: string;
}

/** The same secret opened: what signs a delivery. */
export interface SigningSecret {
  readonly secret: string;
  readonly createdAt: string;
  readonly expiresAt?: string;
}

/**
 * A secret as a subscription keeps it: sealed, or in clear where an earlier version wrote it so. A
 * secret in clear is still read, and is sealed at the subscription's next change or rotation.
 */
export type KeptSigningSecret = SealedSigningSecret | SigningSecret;

export const isSealed = (kept: KeptSigningSecret): kept is SealedSigningSecret => 'sealed' in kept;

export interface Subscription {
  readonly id: string;
  readonly clientId: string;
  readonly name: string;
  readonly url: string;
  readonly status: SubscriptionStatus;
  /** Newest last. */
  readonly signingSecrets: readonly KeptSigningSecret[];
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Why deliveries stopped, when the service disabled it (the endpoint answered 410, or kept failing). */
  readonly disabledReason?: string;
  /** The first failed attempt since the last success: how long the endpoint has been failing. */
  readonly failingSince?: string;
  /** Which events it receives; absent: all. */
  readonly filters?: SubscriptionFilters;
}

/** An ACTIVE subscription as the fan-out needs it: where to queue, and what it wants. */
export interface ActiveSubscription {
  readonly id: string;
  readonly filters?: SubscriptionFilters;
}

/** Enough endpoints for a client's environments and teams; a bound on the fan-out per client and change. */
export const MAX_SUBSCRIPTIONS_PER_CLIENT = 10;
export const MAX_NAME_LENGTH = 100;
/** How long the previous secret keeps signing after a rotation: time for the receiver to switch. */
export const SECRET_GRACE_SECONDS = 24 * 3600;

/** Standard Webhooks secrets: "whsec_" and the base64 of the key bytes (here 32, above the 24 asked for). */
export const generateSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export const generateSubscriptionId = (): string => `wh_${randomBytes(12).toString('base64url')}`;

/** The secret that signs now: the newest. */
export const currentSecret = (subscription: Subscription): KeptSigningSecret =>
  subscription.signingSecrets[subscription.signingSecrets.length - 1] as KeptSigningSecret;

/** What a subscription's secrets are sealed for: a sealed secret moved to another subscription does not open. */
export const secretContext = (subscription: Pick<Subscription, 'clientId' | 'id'>): string =>
  `webhook-signing-secret:${subscription.clientId}/${subscription.id}`;

export class SubscriptionNotFoundError extends Error {
  constructor(readonly id: string) {
    super(`No webhook subscription with id "${id}"`);
    this.name = 'SubscriptionNotFoundError';
  }
}

export class SubscriptionLimitError extends Error {
  constructor() {
    super(`A client may have at most ${MAX_SUBSCRIPTIONS_PER_CLIENT} webhook subscriptions; delete one first`);
    this.name = 'SubscriptionLimitError';
  }
}

export class InvalidSubscriptionCursorError extends Error {
  constructor() {
    super('The cursor is not one this listing returned');
    this.name = 'InvalidSubscriptionCursorError';
  }
}

export interface SubscriptionPage {
  readonly items: readonly Subscription[];
  readonly nextCursor?: string;
}

export interface SubscriptionChanges {
  readonly name?: string;
  readonly url?: string;
  /** ACTIVE also clears disabledReason and failingSince: the endpoint starts afresh. */
  readonly status?: SubscriptionStatus;
  /** With status DISABLED, when the service disables it. */
  readonly disabledReason?: string;
  /** New filters; null removes them. */
  readonly filters?: SubscriptionFilters | null;
}

/** Where subscriptions are kept, always within one client: another client's ids simply do not exist. */
export interface SubscriptionStore {
  create(subscription: Subscription): Promise<void>;
  get(clientId: string, id: string): Promise<Subscription | undefined>;
  list(clientId: string, options: { limit: number; cursor?: string }): Promise<SubscriptionPage>;
  update(clientId: string, id: string, changes: SubscriptionChanges, at: string): Promise<Subscription>;
  rotateSecret(clientId: string, id: string, next: SealedSigningSecret, previousExpiresAt: string): Promise<Subscription>;
  /**
   * Puts the same secrets back sealed, unless the subscription changed after `seenUpdatedAt`; leaves
   * `updatedAt` as it is, since nothing the client sees changes. Undefined when it had changed.
   */
  resealSecrets(
    clientId: string,
    id: string,
    secrets: readonly SealedSigningSecret[],
    seenUpdatedAt: string,
  ): Promise<Subscription | undefined>;
  delete(clientId: string, id: string): Promise<void>;
}

/** What the delivery pipeline needs beyond the client-facing operations. */
export interface SubscriptionDirectory {
  /** The ACTIVE subscriptions of each client given, with their filters (clients without any are absent). */
  activeSubscriptions(clientIds: readonly string[]): Promise<Map<string, ActiveSubscription[]>>;
  get(clientId: string, id: string): Promise<Subscription | undefined>;
  /** The subscriptions that exist among those named, by id. */
  getMany(keys: ReadonlyArray<{ readonly clientId: string; readonly id: string }>): Promise<Map<string, Subscription>>;
  update(clientId: string, id: string, changes: SubscriptionChanges, at: string): Promise<Subscription>;
  /**
   * Disables the subscription as `seen` (the sender's read of it), with the reason, unless it changed
   * after that read or is no longer ACTIVE: false then, and nothing is written.
   */
  disable(seen: Subscription, reason: string, at: string): Promise<boolean>;
  /** Sets failingSince unless already set. */
  markFailing(clientId: string, id: string, at: string): Promise<void>;
  /** Clears failingSince after a success. */
  markHealthy(clientId: string, id: string): Promise<void>;
}

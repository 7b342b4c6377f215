import type { SecretSealer } from '../crypto/secret-sealer';
import { displayNameProblem } from '../text/display-name';
import { checkEndpointUrl, EndpointUrlError, type HostResolver, type UrlRule } from './endpoint-url';
import { newSigningSecret, openCurrentSecret, sealSecretsKeptInClear } from './signing-secrets';
import {
  generateSubscriptionId,
  MAX_NAME_LENGTH,
  SECRET_GRACE_SECONDS,
  SUBSCRIPTION_STATUSES,
  type Subscription,
  type SubscriptionChanges,
  SubscriptionNotFoundError,
  type SubscriptionPage,
  type SubscriptionStatus,
  type SubscriptionStore,
} from './subscription';
import { filtersOf, InvalidFiltersError, type SubscriptionFilters } from './subscription-filters';

/** A field of a subscription request that breaks a rule; `rule` names it for the URL checks. */
export class InvalidSubscriptionError extends Error {
  constructor(
    readonly field: 'name' | 'url' | 'status' | 'filters',
    message: string,
    readonly rule?: UrlRule,
  ) {
    super(message);
    this.name = 'InvalidSubscriptionError';
  }
}

export interface SubscriptionsDeps {
  readonly store: SubscriptionStore;
  readonly resolve: HostResolver;
  readonly clock: () => Date;
  /** Accept loopback receivers: the local runtime's demo only (see loopback.ts). */
  readonly allowLoopback?: boolean;
  /** Destination ports a URL may name; default DEFAULT_DELIVERY_PORTS. */
  readonly ports?: readonly number[];
  /** Seals signing secrets before they are kept, and opens one for an explicit read. */
  readonly sealer: SecretSealer;
}

/** One subscription with its current signing secret in clear: the answer to an explicit read or change of it. */
export interface RevealedSubscription {
  readonly subscription: Subscription;
  readonly signingSecret: string;
}

/** What a client asks for; every field unchecked. */
export interface SubscriptionRequest {
  readonly name?: unknown;
  readonly url?: unknown;
  readonly status?: unknown;
  readonly filters?: unknown;
}

/**
 * A client's webhook subscriptions: the rules on names, URLs and statuses, secret generation and
 * rotation. Used alike by the API and by operators through the CLI.
 */
export class Subscriptions {
  constructor(private readonly deps: SubscriptionsDeps) {}

  async register(clientId: string, request: SubscriptionRequest): Promise<RevealedSubscription> {
    const name = nameOf(request.name);
    const filters = checkedFilters(request.filters);
    const url = await this.urlOf(request.url);
    const at = this.deps.clock().toISOString();
    const id = generateSubscriptionId();
    const { secret, kept } = await newSigningSecret(this.deps.sealer, { clientId, id }, at);
    const subscription: Subscription = {
      id,
      clientId,
      name,
      url,
      status: 'ACTIVE',
      signingSecrets: [kept],
      createdAt: at,
      updatedAt: at,
      ...(filters ? { filters } : {}),
    };
    await this.deps.store.create(subscription);
    return { subscription, signingSecret: secret };
  }

  /** The subscription as kept, its secrets sealed: for checking that it is the client's. */
  async get(clientId: string, id: string): Promise<Subscription> {
    const subscription = await this.deps.store.get(clientId, id);
    if (!subscription) throw new SubscriptionNotFoundError(id);
    return subscription;
  }

  /** The subscription with its current secret opened: an explicit read. */
  async reveal(clientId: string, id: string): Promise<RevealedSubscription> {
    return this.revealed(await this.get(clientId, id));
  }

  list(clientId: string, options: { limit: number; cursor?: string }): Promise<SubscriptionPage> {
    return this.deps.store.list(clientId, options);
  }

  /** Changes the fields given; at least one must be. */
  async change(clientId: string, id: string, request: SubscriptionRequest): Promise<RevealedSubscription> {
    const changes: { -readonly [K in keyof SubscriptionChanges]: SubscriptionChanges[K] } = {};
    if (request.name !== undefined) changes.name = nameOf(request.name);
    if (request.status !== undefined) changes.status = statusOf(request.status);
    if (request.filters !== undefined) changes.filters = checkedFilters(request.filters);
    if (request.url !== undefined) changes.url = await this.urlOf(request.url);
    if (Object.keys(changes).length === 0) throw new NothingToChangeError();
    return this.revealed(await this.sealedOnWrite(await this.deps.store.update(clientId, id, changes, this.deps.clock().toISOString())));
  }

  /** A new secret; the previous one keeps signing beside it for SECRET_GRACE_SECONDS. */
  async rotateSecret(clientId: string, id: string): Promise<RevealedSubscription & { previousExpiresAt: string }> {
    const at = this.deps.clock();
    const previousExpiresAt = new Date(at.getTime() + SECRET_GRACE_SECONDS * 1000).toISOString();
    const { secret, kept } = await newSigningSecret(this.deps.sealer, { clientId, id }, at.toISOString());
    const subscription = await this.sealedOnWrite(await this.deps.store.rotateSecret(clientId, id, kept, previousExpiresAt));
    return { subscription, signingSecret: secret, previousExpiresAt };
  }

  remove(clientId: string, id: string): Promise<void> {
    return this.deps.store.delete(clientId, id);
  }

  /**
   * A secret an earlier version kept in clear is sealed at the subscription's next write. Should
   * another write come between, the secret stays as it was until the write after.
   */
  private async sealedOnWrite(subscription: Subscription): Promise<Subscription> {
    const sealed = await sealSecretsKeptInClear(this.deps.sealer, subscription);
    if (!sealed) return subscription;
    return (await this.deps.store.resealSecrets(subscription.clientId, subscription.id, sealed, subscription.updatedAt)) ?? subscription;
  }

  private async revealed(subscription: Subscription): Promise<RevealedSubscription> {
    return { subscription, signingSecret: await openCurrentSecret(this.deps.sealer, subscription) };
  }

  private async urlOf(value: unknown): Promise<string> {
    if (typeof value !== 'string') throw new InvalidSubscriptionError('url', 'url must be text beginning with https://.', 'not_a_url');
    try {
      return await checkEndpointUrl(value, this.deps.resolve, {
        allowLoopback: this.deps.allowLoopback ?? false,
        ...(this.deps.ports ? { ports: this.deps.ports } : {}),
      });
    } catch (error) {
      if (error instanceof EndpointUrlError) throw new InvalidSubscriptionError('url', error.message, error.rule);
      throw error;
    }
  }
}

export class NothingToChangeError extends Error {
  constructor() {
    super('Give at least one of name, url, status, filters to change.');
    this.name = 'NothingToChangeError';
  }
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim().length > MAX_NAME_LENGTH) {
    throw new InvalidSubscriptionError('name', `name must be text of 1 to ${MAX_NAME_LENGTH} characters.`);
  }
  const problem = displayNameProblem(value);
  if (problem) throw new InvalidSubscriptionError('name', `name ${problem}.`);
  return value.trim();
}

function checkedFilters(value: unknown): SubscriptionFilters | null {
  try {
    return filtersOf(value);
  } catch (error) {
    if (error instanceof InvalidFiltersError) throw new InvalidSubscriptionError('filters', error.message);
    throw error;
  }
}

function statusOf(value: unknown): SubscriptionStatus {
  if (!SUBSCRIPTION_STATUSES.includes(value as SubscriptionStatus)) {
    throw new InvalidSubscriptionError('status', `status must be one of ${SUBSCRIPTION_STATUSES.join(', ')}.`);
  }
  return value as SubscriptionStatus;
}

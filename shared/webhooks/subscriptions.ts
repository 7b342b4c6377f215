import { displayNameProblem } from '../text/display-name';
import { checkEndpointUrl, EndpointUrlError, type HostResolver, type UrlRule } from './endpoint-url';
import {
  generateSigningSecret,
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

/** A field of a subscription request that breaks a rule; `rule` names it for the URL checks. */
export class InvalidSubscriptionError extends Error {
  constructor(
    readonly field: 'name' | 'url' | 'status',
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
}

/** What a client asks for; every field unchecked. */
export interface SubscriptionRequest {
  readonly name?: unknown;
  readonly url?: unknown;
  readonly status?: unknown;
}

/**
 * A client's webhook subscriptions: the rules on names, URLs and statuses, secret generation and
 * rotation. Used alike by the API and by operators through the CLI.
 */
export class Subscriptions {
  constructor(private readonly deps: SubscriptionsDeps) {}

  async register(clientId: string, request: SubscriptionRequest): Promise<Subscription> {
    const name = nameOf(request.name);
    const url = await this.urlOf(request.url);
    const at = this.deps.clock().toISOString();
    const subscription: Subscription = {
      id: generateSubscriptionId(),
      clientId,
      name,
      url,
      status: 'ACTIVE',
      signingSecrets: [{ secret: generateSigningSecret(), createdAt: at }],
      createdAt: at,
      updatedAt: at,
    };
    await this.deps.store.create(subscription);
    return subscription;
  }

  async get(clientId: string, id: string): Promise<Subscription> {
    const subscription = await this.deps.store.get(clientId, id);
    if (!subscription) throw new SubscriptionNotFoundError(id);
    return subscription;
  }

  list(clientId: string, options: { limit: number; cursor?: string }): Promise<SubscriptionPage> {
    return this.deps.store.list(clientId, options);
  }

  /** Changes the fields given; at least one must be. */
  async change(clientId: string, id: string, request: SubscriptionRequest): Promise<Subscription> {
    const changes: { -readonly [K in keyof SubscriptionChanges]: SubscriptionChanges[K] } = {};
    if (request.name !== undefined) changes.name = nameOf(request.name);
    if (request.status !== undefined) changes.status = statusOf(request.status);
    if (request.url !== undefined) changes.url = await this.urlOf(request.url);
    if (Object.keys(changes).length === 0) throw new NothingToChangeError();
    return this.deps.store.update(clientId, id, changes, this.deps.clock().toISOString());
  }

  /** A new secret; the previous one keeps signing beside it for SECRET_GRACE_SECONDS. */
  async rotateSecret(clientId: string, id: string): Promise<{ subscription: Subscription; previousExpiresAt: string }> {
    const at = this.deps.clock();
    const previousExpiresAt = new Date(at.getTime() + SECRET_GRACE_SECONDS * 1000).toISOString();
    const next = { secret: generateSigningSecret(), createdAt: at.toISOString() };
    return { subscription: await this.deps.store.rotateSecret(clientId, id, next, previousExpiresAt), previousExpiresAt };
  }

  remove(clientId: string, id: string): Promise<void> {
    return this.deps.store.delete(clientId, id);
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
    super('Give at least one of name, url, status to change.');
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

function statusOf(value: unknown): SubscriptionStatus {
  if (!SUBSCRIPTION_STATUSES.includes(value as SubscriptionStatus)) {
    throw new InvalidSubscriptionError('status', `status must be one of ${SUBSCRIPTION_STATUSES.join(', ')}.`);
  }
  return value as SubscriptionStatus;
}

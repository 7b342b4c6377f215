import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { batchGet } from '../storage/batch';
import {
  type ActiveSubscription,
  InvalidSubscriptionCursorError,
  type KeptSigningSecret,
  MAX_SUBSCRIPTIONS_PER_CLIENT,
  type SealedSigningSecret,
  type Subscription,
  type SubscriptionChanges,
  type SubscriptionDirectory,
  SubscriptionLimitError,
  SubscriptionNotFoundError,
  type SubscriptionPage,
  type SubscriptionStore,
} from './subscription';
import type { SubscriptionFilters } from './subscription-filters';

const SUBSCRIPTION_PREFIX = 'WEBHOOK#';
/**
 * One summary item per client counts its subscriptions, so the cap holds however many create at
 * once, and holds the ids of its ACTIVE ones (activeIds), so a fan-out learns every watcher's
 * endpoints with one batched read per hundred clients.
 */
const COUNT_SK = 'COUNT';
/**
 * Each subscription's filters are also kept on the summary item, one attribute per subscription
 * (no map to create first), so the fan-out's one read per hundred clients learns them too.
 */
const FILTERS_PREFIX = 'filters_';
const filtersAttribute = (id: string) => `${FILTERS_PREFIX}${id}`;

const UPDATE_ATTEMPTS = 3;
/** Transactions that collide on a client's summary item: enough for ten subscriptions changing at once. */
const CONFLICT_ATTEMPTS = 6;
const SUBSCRIPTION_ID = /^wh_[A-Za-z0-9_-]{16}$/;

const clientPk = (clientId: string) => `CLIENT#${clientId}`;
const keyOf = (clientId: string, id: string) => ({ pk: clientPk(clientId), sk: `${SUBSCRIPTION_PREFIX}${id}` });

/**
 * A secret as an item holds it: `sealed`; or `secret`, in clear, in items written before secrets were
 * sealed. For a while a rotation wrote such a previous secret back under `sealed` unchanged: a
 * `whsec_` value there is one in clear too.
 */
type StoredSigningSecret = Omit<SealedSigningSecret, 'sealed'> & { readonly sealed?: string; readonly secret?: string };

type StoredSubscription = Omit<Subscription, 'signingSecrets'> & {
  readonly pk: string;
  readonly sk: string;
  readonly signingSecrets: readonly StoredSigningSecret[];
};

const CLEAR_SECRET_PREFIX = 'whsec_';

/** An item holding neither form gives a sealed value that never opens, rather than an empty key to sign with. */
function keptOf({ sealed, secret, ...dates }: StoredSigningSecret): KeptSigningSecret {
  const clear = secret ?? (sealed?.startsWith(CLEAR_SECRET_PREFIX) ? sealed : undefined);
  return clear === undefined ? { ...dates, sealed: sealed ?? '' } : { ...dates, secret: clear };
}

/** A subscription from its item; a secret kept in clear stays so until the subscription's next write seals it. */
export function subscriptionOf(item: StoredSubscription): Subscription {
  const { pk: _pk, sk: _sk, signingSecrets, ...subscription } = item;
  return { ...subscription, signingSecrets: signingSecrets.map(keptOf) };
}

const failedCondition = (error: unknown, index: number) =>
  error instanceof TransactionCanceledException && error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';
const conflicted = (error: unknown) =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');
/** Jittered, so changes that collided on a client's summary item do not collide again. */
const conflictPause = (attempt: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));

/** The subscription item's side of a change: its fields set, and what enabling or removing filters clears. */
function subscriptionUpdate(changes: SubscriptionChanges, at: string) {
  const { filters, ...rest } = changes;
  const fields: Record<string, unknown> = { ...rest, ...(filters ? { filters } : {}), updatedAt: at };
  const removed = [...(changes.status === 'ACTIVE' ? ['disabledReason', 'failingSince'] : []), ...(filters === null ? ['filters'] : [])];
  const names = Object.keys(fields);
  return {
    UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}${removed.length ? ` REMOVE ${removed.map((name) => `#${name}`).join(', ')}` : ''}`,
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: Object.fromEntries([...names, ...removed].map((name) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value])),
  };
}

/** The summary item's side of a change: the fan-out's copy of the filters, and the active set when the status changes. */
function summaryUpdate(id: string, changes: SubscriptionChanges) {
  const { filters, status } = changes;
  const parts = [
    ...(filters ? ['SET #filters = :filters'] : filters === null ? ['REMOVE #filters'] : []),
    ...(status === 'ACTIVE' ? ['ADD activeIds :ids'] : status === 'DISABLED' ? ['DELETE activeIds :ids'] : []),
  ];
  const values = {
    ...(filters ? { ':filters': filters } : {}),
    ...(status ? { ':ids': new Set([id]) } : {}),
  };
  return {
    UpdateExpression: parts.join(' '),
    ...(filters === undefined ? {} : { ExpressionAttributeNames: { '#filters': filtersAttribute(id) } }),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

/** Subscriptions in the webhooks table, under their client's partition. */
export class DynamoSubscriptionStore implements SubscriptionStore, SubscriptionDirectory {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(subscription: Subscription): Promise<void> {
    try {
      await this.transact(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: { pk: clientPk(subscription.clientId), sk: COUNT_SK },
                UpdateExpression: `ADD subscriptions :one, activeIds :ids${subscription.filters ? ' SET #filters = :filters' : ''}`,
                ConditionExpression: 'attribute_not_exists(subscriptions) OR subscriptions < :max',
                ...(subscription.filters ? { ExpressionAttributeNames: { '#filters': filtersAttribute(subscription.id) } } : {}),
                ExpressionAttributeValues: {
                  ':one': 1,
                  ':max': MAX_SUBSCRIPTIONS_PER_CLIENT,
                  ':ids': new Set([subscription.id]),
                  ...(subscription.filters ? { ':filters': subscription.filters } : {}),
                },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...keyOf(subscription.clientId, subscription.id), ...subscription },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (failedCondition(error, 0)) throw new SubscriptionLimitError();
      throw error;
    }
  }

  async get(clientId: string, id: string): Promise<Subscription | undefined> {
    if (!SUBSCRIPTION_ID.test(id)) return undefined;
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keyOf(clientId, id), ConsistentRead: true }));
    return result.Item && subscriptionOf(result.Item as StoredSubscription);
  }

  async getMany(keys: ReadonlyArray<{ readonly clientId: string; readonly id: string }>): Promise<Map<string, Subscription>> {
    const wanted = [...new Map(keys.filter((key) => SUBSCRIPTION_ID.test(key.id)).map((key) => [key.id, key])).values()];
    const items = await batchGet<StoredSubscription>(
      this.doc,
      this.tableName,
      wanted.map((key) => keyOf(key.clientId, key.id)),
    );
    return new Map(items.map(subscriptionOf).map((subscription) => [subscription.id, subscription]));
  }

  async list(clientId: string, options: { limit: number; cursor?: string }): Promise<SubscriptionPage> {
    const after = options.cursor === undefined ? undefined : idOf(options.cursor);
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': clientPk(clientId), ':prefix': SUBSCRIPTION_PREFIX },
        Limit: options.limit,
        ...(after === undefined ? {} : { ExclusiveStartKey: keyOf(clientId, after) }),
      }),
    );
    const items = ((result.Items ?? []) as StoredSubscription[]).map(subscriptionOf);
    const last = items.at(-1);
    return result.LastEvaluatedKey && last ? { items, nextCursor: encodeCursor({ after: last.id }) } : { items };
  }

  /**
   * A change of status or filters is one transaction with the client's summary item, so the fan-out's
   * active set and filters always agree with the subscription, whatever other change runs at once.
   */
  async update(clientId: string, id: string, changes: SubscriptionChanges, at: string): Promise<Subscription> {
    if (!SUBSCRIPTION_ID.test(id)) throw new SubscriptionNotFoundError(id);
    if (changes.filters !== undefined || changes.status !== undefined) return this.updateWithSummary(clientId, id, changes, at);
    try {
      const result = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(clientId, id),
          ...subscriptionUpdate(changes, at),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return subscriptionOf(result.Attributes as StoredSubscription);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new SubscriptionNotFoundError(id);
      throw error;
    }
  }

  private async updateWithSummary(clientId: string, id: string, changes: SubscriptionChanges, at: string): Promise<Subscription> {
    try {
      await this.transact(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: this.tableName, Key: keyOf(clientId, id), ...subscriptionUpdate(changes, at) } },
            { Update: { TableName: this.tableName, Key: { pk: clientPk(clientId), sk: COUNT_SK }, ...summaryUpdate(id, changes) } },
          ],
        }),
      );
    } catch (error) {
      if (failedCondition(error, 0)) throw new SubscriptionNotFoundError(id);
      throw error;
    }
    // A transaction returns no item: read it back, as it stands now.
    const updated = await this.get(clientId, id);
    if (!updated) throw new SubscriptionNotFoundError(id);
    return updated;
  }

  /**
   * The sender's disable: the subscription and the active set in one transaction, on condition that
   * the subscription is as the sender read it (still ACTIVE, not changed since), so a client's change
   * made after that read (re-enabling it, a new URL) is never undone by an attempt that predates it.
   */
  async disable(seen: Subscription, reason: string, at: string): Promise<boolean> {
    try {
      await this.transact(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keyOf(seen.clientId, seen.id),
                UpdateExpression: 'SET #status = :disabled, disabledReason = :reason, updatedAt = :at',
                ConditionExpression: '#status = :active AND updatedAt = :seen',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: {
                  ':disabled': 'DISABLED',
                  ':active': 'ACTIVE',
                  ':reason': reason,
                  ':at': at,
                  ':seen': seen.updatedAt,
                },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: { pk: clientPk(seen.clientId), sk: COUNT_SK },
                UpdateExpression: 'DELETE activeIds :ids',
                ExpressionAttributeValues: { ':ids': new Set([seen.id]) },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (failedCondition(error, 0)) return false;
      throw error;
    }
  }

  /** Changes to one client's subscriptions meet on its summary item: one that collided there is tried again. */
  private async transact(command: TransactWriteCommand): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.doc.send(command);
        return;
      } catch (error) {
        if (!conflicted(error) || attempt === CONFLICT_ATTEMPTS) throw error;
        await conflictPause(attempt);
      }
    }
  }

  private async copyFiltersToSummary(clientId: string, id: string, filters: SubscriptionFilters): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: clientPk(clientId), sk: COUNT_SK },
        UpdateExpression: 'SET #filters = :filters',
        ExpressionAttributeNames: { '#filters': filtersAttribute(id) },
        ExpressionAttributeValues: { ':filters': filters },
      }),
    );
  }

  private async changeActiveSet(clientId: string, id: string, action: 'ADD' | 'DELETE'): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: clientPk(clientId), sk: COUNT_SK },
        UpdateExpression: `${action} activeIds :ids`,
        ExpressionAttributeValues: { ':ids': new Set([id]) },
      }),
    );
  }

  async activeSubscriptions(clientIds: readonly string[]): Promise<Map<string, ActiveSubscription[]>> {
    const items = await batchGet<{ pk: string; activeIds?: Set<string> } & Record<string, unknown>>(
      this.doc,
      this.tableName,
      [...new Set(clientIds)].map((clientId) => ({ pk: clientPk(clientId), sk: COUNT_SK })),
    );
    const active = new Map<string, ActiveSubscription[]>();
    for (const item of items) {
      if (!item.activeIds || item.activeIds.size === 0) continue;
      active.set(
        item.pk.slice('CLIENT#'.length),
        [...item.activeIds].sort().map((id) => {
          const filters = item[filtersAttribute(id)] as SubscriptionFilters | undefined;
          return filters ? { id, filters } : { id };
        }),
      );
    }
    return active;
  }

  /**
   * Puts every ACTIVE subscription's id into its client's active set, a page at a time: brings a
   * table written before the sets existed up to date, and repairs any drift. Idempotent; returns how
   * many subscriptions it saw and how many are active.
   */
  async rebuildActiveSets(onPage?: (progress: { seen: number; active: number }) => void): Promise<{ seen: number; active: number }> {
    let seen = 0;
    let active = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: 'begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':prefix': SUBSCRIPTION_PREFIX },
          ProjectionExpression: 'clientId, id, #status, filters',
          ExpressionAttributeNames: { '#status': 'status' },
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      const items = (page.Items ?? []) as Array<Pick<Subscription, 'clientId' | 'id' | 'status' | 'filters'>>;
      seen += items.length;
      const activeItems = items.filter((item) => item.status === 'ACTIVE');
      active += activeItems.length;
      await Promise.all(
        activeItems.map(async (item) => {
          await this.changeActiveSet(item.clientId, item.id, 'ADD');
          if (item.filters) await this.copyFiltersToSummary(item.clientId, item.id, item.filters);
        }),
      );
      onPage?.({ seen, active });
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return { seen, active };
  }

  async markFailing(clientId: string, id: string, at: string): Promise<void> {
    await this.conditionalUpdate(clientId, id, 'SET failingSince = if_not_exists(failingSince, :at)', 'attribute_exists(pk)', {
      ':at': at,
    });
  }

  async markHealthy(clientId: string, id: string): Promise<void> {
    await this.conditionalUpdate(clientId, id, 'REMOVE failingSince', 'attribute_exists(failingSince)');
  }

  /** A subscription deleted, or already in the state wanted, meanwhile: nothing to do. */
  private async conditionalUpdate(
    clientId: string,
    id: string,
    expression: string,
    condition: string,
    values?: Record<string, unknown>,
  ): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(clientId, id),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ...(values ? { ExpressionAttributeValues: values } : {}),
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** The previous newest secret keeps signing until previousExpiresAt; older ones past their time are dropped. */
  async rotateSecret(clientId: string, id: string, next: SealedSigningSecret, previousExpiresAt: string): Promise<Subscription> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = await this.get(clientId, id);
      if (!current) throw new SubscriptionNotFoundError(id);
      const kept = current.signingSecrets
        .map((secret) => ({ ...secret, expiresAt: secret.expiresAt ?? previousExpiresAt }))
        .filter((secret) => secret.expiresAt > next.createdAt);
      try {
        const result = await this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keyOf(clientId, id),
            UpdateExpression: 'SET signingSecrets = :secrets, updatedAt = :at',
            ConditionExpression: 'updatedAt = :seen',
            ExpressionAttributeValues: { ':secrets': [...kept, next], ':at': next.createdAt, ':seen': current.updatedAt },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return subscriptionOf(result.Attributes as StoredSubscription);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new Error(`Webhook subscription ${id} kept changing while its secret was rotated; try again`);
  }

  async resealSecrets(
    clientId: string,
    id: string,
    secrets: readonly SealedSigningSecret[],
    seenUpdatedAt: string,
  ): Promise<Subscription | undefined> {
    try {
      const result = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(clientId, id),
          UpdateExpression: 'SET signingSecrets = :secrets',
          ConditionExpression: 'updatedAt = :seen',
          ExpressionAttributeValues: { ':secrets': secrets, ':seen': seenUpdatedAt },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return subscriptionOf(result.Attributes as StoredSubscription);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  async delete(clientId: string, id: string): Promise<void> {
    if (!SUBSCRIPTION_ID.test(id)) throw new SubscriptionNotFoundError(id);
    try {
      await this.transact(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: this.tableName, Key: keyOf(clientId, id), ConditionExpression: 'attribute_exists(pk)' } },
            {
              Update: {
                TableName: this.tableName,
                Key: { pk: clientPk(clientId), sk: COUNT_SK },
                UpdateExpression: 'ADD subscriptions :minusOne DELETE activeIds :ids REMOVE #filters',
                ExpressionAttributeNames: { '#filters': filtersAttribute(id) },
                ExpressionAttributeValues: { ':minusOne': -1, ':ids': new Set([id]) },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (failedCondition(error, 0)) throw new SubscriptionNotFoundError(id);
      throw error;
    }
  }
}

function idOf(cursor: string): string {
  const position = decodeCursor(cursor, () => new InvalidSubscriptionCursorError());
  if (typeof position.after !== 'string' || !SUBSCRIPTION_ID.test(position.after)) throw new InvalidSubscriptionCursorError();
  return position.after;
}

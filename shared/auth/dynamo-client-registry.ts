import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { CLIENT_LIST_INDEX } from '../storage/tables';
import {
  ClientAlreadyExistsError,
  ClientNotFoundError,
  type ClientRecord,
  type ClientRegistry,
  type ClientStatus,
  ConcurrentClientUpdateError,
  type CreateClientInput,
  InvalidClientInputError,
  isWellFormedClientId,
  type SecretVersionInfo,
  validClientId,
  validGrace,
  validName,
  validPageSize,
  validRateLimit,
  validSecret,
} from './client-registry';
import { type Clock, epochSeconds, systemClock } from './clock';
import { generateClientSecret, hashClientSecret, secretMatchesAny } from './secret-hash';

const UPDATE_ATTEMPTS = 3;

const CLIENT_SK = 'CLIENT';
const LIST_KEY = 'CLIENT';

interface StoredSecretVersion extends SecretVersionInfo {
  readonly hash: string;
}

/** The item as stored: the only shape that holds secret hashes. */
/** The stored item: the record plus its keys, its secret hashes in place of their summaries, and a lock. */
interface StoredClient extends Omit<ClientRecord, 'secretVersions'> {
  readonly pk: string;
  readonly sk: string;
  readonly listKey: string;
  readonly secrets: readonly StoredSecretVersion[];
  /** Optimistic-lock counter for read-modify-write updates. */
  readonly revision: number;
}

const clientKey = (clientId: string) => ({ pk: `CLIENT#${clientId}`, sk: CLIENT_SK });

function toRecord(item: StoredClient): ClientRecord {
  return {
    clientId: item.clientId,
    name: item.name,
    status: item.status,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    ...(item.rateLimitPerMinute !== undefined ? { rateLimitPerMinute: item.rateLimitPerMinute } : {}),
    tokensNotBefore: item.tokensNotBefore,
    secretVersions: item.secrets.map(({ version, createdAt, expiresAt }) => ({
      version,
      createdAt,
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    })),
  };
}

const generateClientId = () => `cli_${randomBytes(12).toString('base64url')}`;

const cursorOf = (clientId: string) => encodeCursor({ after: clientId });

function clientIdOf(cursor: string): string {
  const refused = () => new InvalidClientInputError('cursor', 'The cursor is not one this listing returned');
  const position = decodeCursor(cursor, refused);
  if (typeof position.after !== 'string' || !isWellFormedClientId(position.after)) throw refused();
  return position.after;
}

const isUsable = (version: StoredSecretVersion, now: number) => version.expiresAt === undefined || version.expiresAt > now;

export class DynamoClientRegistry implements ClientRegistry {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock = systemClock,
  ) {}

  async create(input: CreateClientInput): Promise<{ client: ClientRecord; secret: string }> {
    const name = validName(input.name);
    const clientId = input.clientId === undefined ? generateClientId() : validClientId(input.clientId);
    const secret = input.secret === undefined ? generateClientSecret() : validSecret(input.secret);
    const rateLimitPerMinute = input.rateLimitPerMinute === undefined ? undefined : validRateLimit(input.rateLimitPerMinute);
    const now = new Date(this.clock()).toISOString();
    const item: StoredClient = {
      ...clientKey(clientId),
      listKey: LIST_KEY,
      clientId,
      name,
      status: 'active',
      createdAt: now,
      updatedAt: now,
      ...(rateLimitPerMinute !== undefined ? { rateLimitPerMinute } : {}),
      tokensNotBefore: 0,
      secrets: [{ version: 1, hash: hashClientSecret(secret), createdAt: now }],
      revision: 1,
    };
    try {
      await this.doc.send(new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ClientAlreadyExistsError(clientId);
      throw error;
    }
    return { client: toRecord(item), secret };
  }

  async get(clientId: string): Promise<ClientRecord | undefined> {
    const item = await this.load(clientId);
    return item && toRecord(item);
  }

  async list(options: { cursor?: string; limit?: number } = {}): Promise<{ clients: ClientRecord[]; cursor?: string }> {
    const limit = validPageSize(options.limit);
    const after = options.cursor === undefined ? undefined : clientIdOf(options.cursor);
    const page = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: CLIENT_LIST_INDEX,
        KeyConditionExpression: 'listKey = :list',
        ExpressionAttributeValues: { ':list': LIST_KEY },
        Limit: limit,
        ...(after ? { ExclusiveStartKey: { listKey: LIST_KEY, ...clientKey(after) } } : {}),
      }),
    );
    const clients = (page.Items ?? []).map((item) => toRecord(item as StoredClient));
    const last = clients.at(-1);
    return page.LastEvaluatedKey && last ? { clients, cursor: cursorOf(last.clientId) } : { clients };
  }

  async rotateSecret(clientId: string, options: { graceSeconds: number; secret?: string }): Promise<{ secret: string; version: number }> {
    const graceSeconds = validGrace(options.graceSeconds);
    const secret = options.secret === undefined ? generateClientSecret() : validSecret(options.secret);
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const item = await this.load(clientId);
      if (!item) throw new ClientNotFoundError(clientId);
      const nowMs = this.clock();
      const now = epochSeconds(() => nowMs);
      const retireAt = now + graceSeconds;
      const retained = item.secrets
        .map((version) => ({ ...version, expiresAt: Math.min(version.expiresAt ?? retireAt, retireAt) }))
        .filter((version) => isUsable(version, now));
      const version = Math.max(0, ...item.secrets.map((v) => v.version)) + 1;
      const createdAt = new Date(nowMs).toISOString();
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: clientKey(clientId),
            UpdateExpression: 'SET secrets = :secrets, tokensNotBefore = :now, updatedAt = :updatedAt, revision = :next',
            ConditionExpression: 'revision = :revision',
            ExpressionAttributeValues: {
              ':secrets': [...retained, { version, hash: hashClientSecret(secret), createdAt }],
              ':now': now,
              ':updatedAt': createdAt,
              ':revision': item.revision,
              ':next': item.revision + 1,
            },
          }),
        );
        return { secret, version };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new ConcurrentClientUpdateError(clientId);
  }

  /** Outstanding tokens stop working at the verifiers' next refresh of the record. */
  disable(clientId: string): Promise<ClientRecord> {
    return this.setStatus(clientId, 'disabled');
  }

  /** Tokens issued before an earlier disable stay refused: tokensNotBefore is left as it was. */
  enable(clientId: string): Promise<ClientRecord> {
    return this.setStatus(clientId, 'active');
  }

  async verifyCredentials(clientId: string, secret: string): Promise<ClientRecord | undefined> {
    const item = isWellFormedClientId(clientId) ? await this.load(clientId) : undefined;
    const now = epochSeconds(this.clock);
    const hashes = (item?.secrets ?? []).filter((version) => isUsable(version, now)).map((version) => version.hash);
    // Always compare, even for an unknown or disabled client, so timing reveals neither.
    const matched = secretMatchesAny(secret, hashes);
    return matched && item?.status === 'active' ? toRecord(item) : undefined;
  }

  /** Deletes the client record: its id and secrets stop existing. Its data goes first (see client-removal). */
  async remove(clientId: string): Promise<void> {
    if (!isWellFormedClientId(clientId)) return;
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: clientKey(clientId) }));
  }

  private async setStatus(clientId: string, status: ClientStatus): Promise<ClientRecord> {
    if (!isWellFormedClientId(clientId)) throw new ClientNotFoundError(clientId);
    const now = this.clock();
    const revoke = status === 'disabled';
    try {
      const result = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: clientKey(clientId),
          UpdateExpression: `SET #status = :status, updatedAt = :updatedAt${revoke ? ', tokensNotBefore = :now' : ''} ADD revision :one`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':status': status,
            ':updatedAt': new Date(now).toISOString(),
            ':one': 1,
            ...(revoke ? { ':now': epochSeconds(() => now) } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toRecord(result.Attributes as StoredClient);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ClientNotFoundError(clientId);
      throw error;
    }
  }

  private async load(clientId: string): Promise<StoredClient | undefined> {
    if (!isWellFormedClientId(clientId)) return undefined;
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: clientKey(clientId), ConsistentRead: true }));
    return result.Item as StoredClient | undefined;
  }
}

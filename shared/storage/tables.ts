/**
 * The one definition of every DynamoDB table. The CDK constructs and the local runtime both build
 * their tables from these records, so the deployed shape and the local shape cannot drift.
 */
export type KeyType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: KeyType;
}

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  /** 'ALL', 'KEYS_ONLY', or the non-key attributes to project. */
  readonly projection: 'ALL' | 'KEYS_ONLY' | readonly string[];
}

export interface TableDefinition {
  /** Logical name: the CDK construct id and the local table name. */
  readonly id: string;
  /** Environment variable that carries the physical table name to the functions. */
  readonly envVar: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly globalSecondaryIndexes?: readonly IndexDefinition[];
  readonly stream?: 'NEW_AND_OLD_IMAGES';
  /** Clean-up only: never rely on TTL deletion for correctness. */
  readonly timeToLiveAttribute?: string;
}

const S = (name: string): KeyAttribute => ({ name, type: 'S' });

/** Client records only, by listKey: the operator's listing. */
export const CLIENT_LIST_INDEX = 'clientList';
/** Watches by client: sk and pk swapped. */
export const WATCHES_BY_CLIENT_INDEX = 'byClient';

/**
 * Clients, their secret versions, rate-limit windows and the published signing keys. clientList is
 * sparse: only client records carry listKey, so the operator can page through clients without
 * reading rate-limit counters.
 */
export const clientsTable: TableDefinition = {
  id: 'clients',
  envVar: 'CLIENTS_TABLE',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  globalSecondaryIndexes: [{ indexName: CLIENT_LIST_INDEX, partitionKey: S('listKey'), sortKey: S('pk'), projection: 'ALL' }],
  timeToLiveAttribute: 'expiresAt',
};

/** Company profiles and their search-index items. */
export const companiesTable: TableDefinition = {
  id: 'companies',
  envVar: 'COMPANIES_TABLE',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  stream: 'NEW_AND_OLD_IMAGES',
};

/** Which client watches which company: pk = company key, sk = client id; byClient inverts it. */
export const watchesTable: TableDefinition = {
  id: 'watches',
  envVar: 'WATCHES_TABLE',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  globalSecondaryIndexes: [{ indexName: WATCHES_BY_CLIENT_INDEX, partitionKey: S('sk'), sortKey: S('pk'), projection: 'ALL' }],
};

/** Webhook subscriptions by client: pk `CLIENT#<clientId>`, sk `WEBHOOK#<id>`, and one `COUNT` item per client. */
export const webhooksTable: TableDefinition = {
  id: 'webhooks',
  envVar: 'WEBHOOKS_TABLE',
  partitionKey: S('pk'),
  sortKey: S('sk'),
};

/**
 * The delivery log, by subscription: pk `WEBHOOK#<subscriptionId>`; sk `DELIVERY#<deliveryId>` holds
 * a delivery's event and state, sk `ATTEMPT#<time>#<deliveryId>#<n>` each attempt. Kept 30 days.
 */
export const deliveriesTable: TableDefinition = {
  id: 'deliveries',
  envVar: 'DELIVERIES_TABLE',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  timeToLiveAttribute: 'expiresAt',
};

/**
 * Each client's events, as its webhooks would carry them, for GET /v1/events: pk `CLIENT#<clientId>`,
 * sk `EVENT#<occurredAt>#<event id>`, so newest first is one Query. Written by the fan-out for every
 * watcher of the changed company; kept 30 days.
 */
export const eventsTable: TableDefinition = {
  id: 'events',
  envVar: 'EVENTS_TABLE',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  timeToLiveAttribute: 'expiresAt',
};

/**
 * The client workspace: people (`PERSON#<personId>`), their e-mail addresses (`EMAIL#<address>`),
 * invitations and sessions by the hash of their secret, passkeys, sign-in challenges and sign-in rate
 * counters. Invitations, sessions, challenges and counters expire.
 */
export const workspaceTable: TableDefinition = {
  id: 'workspace',
  envVar: 'WORKSPACE_TABLE',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  timeToLiveAttribute: 'expiresAt',
};

/**
 * The register's streams as this service consumes them, one partition per stream
 * (`STREAM#<name>`): sk `CHECKPOINT` is the last timepoint fully applied, `LEASE` the consumer that
 * may apply now, `GAP#<at>#<from>` each time the stream refused a timepoint as gone.
 */
export const registerStreamsTable: TableDefinition = {
  id: 'registerStreams',
  envVar: 'REGISTER_STREAMS_TABLE',
  partitionKey: S('pk'),
  sortKey: S('sk'),
};

export const allTables: readonly TableDefinition[] = [
  clientsTable,
  companiesTable,
  watchesTable,
  webhooksTable,
  deliveriesTable,
  eventsTable,
  workspaceTable,
  registerStreamsTable,
];

/** Physical table name from the function's environment; fails fast at cold start when unset. */
export function tableName(def: TableDefinition, env: NodeJS.ProcessEnv = process.env): string {
  const name = env[def.envVar];
  if (!name) throw new Error(`${def.envVar} is not set`);
  return name;
}

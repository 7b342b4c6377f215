import { ACCOUNTS_OBJECT_PATTERNS } from '../shared/accounts/import/accounts-object-keys';
import { SIGNING_KEYS_PK } from '../shared/auth/published-jwks-store';
import { RATE_KEY_PREFIX } from '../shared/auth/rate-limit';
import { type KeyAction, QUEUE_MAPPING_ACTIONS, type QueueAction, type StreamAction, type TableAction } from '../shared/iam/actions';
import { deliveriesQueue, fanoutQueue, type QueueDefinition, streamFailuresQueue } from '../shared/queues/queues';
import { OBJECT_PATTERNS } from '../shared/register/import/object-keys';
import {
  clientsTable,
  companiesTable,
  deliveriesTable,
  eventsTable,
  registerStreamsTable,
  type TableDefinition,
  WATCHES_BY_CLIENT_INDEX,
  watchesTable,
  webhooksTable,
  workspaceTable,
} from '../shared/storage/tables';
import { PROFILE_CHANGE_FILTER, type StreamFilter } from '../shared/webhooks/profile-stream-record';

/**
 * Every function of the service, described once. The CDK stack builds the Lambda functions, their
 * least-privilege grants and API routes from this list; the local runtime serves the same routes
 * with the same handler modules and environment variable names, and refuses any call these grants
 * do not allow (local/grants.ts).
 */
export interface TableAccess {
  /**
   * The item actions the function's code sends to the table itself, and nothing more: a grant no
   * code path uses fails test/e2e/least-privilege.test.ts, as does a call no grant allows.
   */
  readonly actions: readonly TableAction[];
  /** Indexes the code queries: Query on each of these indexes, never on the others or on the table for their sake. */
  readonly queryIndexes?: readonly string[];
  /** What the code reads of the table's stream, on the stream's ARN. */
  readonly streamReads?: readonly StreamAction[];
}

export interface TableGrant {
  readonly table: TableDefinition;
  readonly access: TableAccess;
  /**
   * Restricts the grant's writes (PutItem, UpdateItem, DeleteItem, BatchWriteItem) to items whose
   * partition key starts with one of these prefixes (IAM condition dynamodb:LeadingKeys), e.g.
   * rate-limit counters only.
   */
  readonly writeKeyPrefixes?: readonly string[];
}

export interface QueueGrant {
  readonly queue: QueueDefinition;
  /**
   * Either way the function gets the queue URL in the definition's variable. 'send': sqs:SendMessage
   * (SendMessageBatch included). 'consume': the queue is the function's event source, and the grant
   * is what the mapping calls with the function's role (shared/iam/actions QUEUE_MAPPING_ACTIONS).
   */
  readonly access: 'send' | 'consume';
}

/**
 * What invokes a function besides routes: the event source mappings. The CDK stack builds Lambda's
 * mappings from these, and the local runtime its pollers, with the same settings.
 */
export type EventSourceSpec =
  | {
      readonly kind: 'stream';
      readonly table: TableDefinition;
      /** Records the mapping hands over without invoking the function for the rest. */
      readonly filter: StreamFilter;
      readonly batchSize: number;
      /** Retries of a failing batch before it goes to the on-failure destination. */
      readonly maxRetryAttempts: number;
      readonly bisectBatchOnError: boolean;
    }
  | {
      readonly kind: 'queue';
      readonly queue: QueueDefinition;
      readonly batchSize: number;
      /** Invocations at once for this source: a slow receiver cannot take the whole account. */
      readonly maxConcurrency: number;
      /**
       * The code defers messages it was handed by changing their visibility (its retry schedule), so
       * its role also gets sqs:ChangeMessageVisibility on the queue; the mapping alone never needs it.
       */
      readonly changesVisibility?: boolean;
    };

/**
 * Who may call a route and where that is checked. Every route is open at the gateway (no API Gateway
 * authorizer) because each function checks its callers itself; each route says how, so none can be
 * added without a decision (the stack's cdk-nag acknowledgement is made per route from this).
 */
export type RouteAccess =
  /** Client id and secret, checked by the token function. */
  | 'client-credentials'
  /** A bearer JWT, verified in the function with the client's status and rate limit. */
  | 'bearer'
  /** A workspace session cookie (or a sign-in, which starts one), checked in the function. */
  | 'workspace-session'
  /** Public by design: the JWKS that verifies tokens, and the API's OpenAPI document. */
  | 'public';

/** How a function uses the KMS key that seals webhook signing secrets. */
export type WebhookSecretsAccess = 'seal' | 'open';

/** What each use of the key sends to KMS: sealing asks for data keys and opens them; opening only opens. */
export const WEBHOOK_SECRETS_ACTIONS: Readonly<Record<WebhookSecretsAccess, readonly KeyAction[]>> = {
  seal: ['GenerateDataKey', 'Decrypt'],
  open: ['Decrypt'],
};

export interface RouteSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway route syntax, e.g. /v1/profile/{companyNumber}. */
  readonly path: string;
  readonly access: RouteAccess;
  /**
   * A tighter gateway throttle for this route than the stage's (requests per second, burst), where
   * each call is costly by design: a password hash. The function still counts per person and address.
   */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
}

/** Sign-in routes hash a password with scrypt (about 100 ms of CPU): the gateway caps them service-wide. */
const SIGN_IN_THROTTLE = { rateLimit: 20, burstLimit: 40 } as const;

export interface FunctionSpec {
  /** Construct id and local name. */
  readonly id: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly routes: readonly RouteSpec[];
  readonly tables: readonly TableGrant[];
  readonly queues?: readonly QueueGrant[];
  readonly eventSources?: readonly EventSourceSpec[];
  /** Deliveries may go to loopback receivers under the local runtime (never on AWS: see shared/webhooks/loopback). */
  readonly loopbackReceivers?: boolean;
  /** Calls subscribers' servers: from the stage's fixed addresses when it has them (infra/stages.json egress). */
  readonly fixedEgress?: boolean;
  /** Session cookies without Secure under the local runtime's plain HTTP on loopback (never on AWS: see shared/workspace/config). */
  readonly plainHttpCookies?: boolean;
  /** 'sign' reads the private signing keys; 'rotate' is the Secrets Manager rotation function. */
  readonly signingKey?: 'sign' | 'rotate';
  /** 'seal' keeps new webhook signing secrets (and opens them); 'open' only opens them, to sign. */
  readonly webhookSecrets?: WebhookSecretsAccess;
  readonly memoryMb?: number;
  readonly timeoutSeconds?: number;
  /** Objects of the register uploads bucket the code reads and writes, as key patterns: GetObject and PutObject on those only. */
  readonly uploads?: UploadsGrant;
  /** /tmp in MB, beyond Lambda's 512: room for a file the code must hold whole on disk. */
  readonly ephemeralStorageMb?: number;
}

export interface UploadsGrant {
  readonly read: readonly string[];
  readonly write: readonly string[];
}

/** What a function gets when its spec sets no memory or timeout, deployed and local alike. */
export const FUNCTION_DEFAULTS = { memoryMb: 512, timeoutSeconds: 10 } as const;

/** Client records and the published public keys, each read by its key. */
const clientRecords: TableGrant = { table: clientsTable, access: { actions: ['GetItem'] } };
/** A call counted in its rate-limit window (and a token request's count taken back): the only clients items written. */
const rateCounters: TableGrant = { table: clientsTable, access: { actions: ['UpdateItem'] }, writeKeyPrefixes: [RATE_KEY_PREFIX] };
/** What functions/protection.ts does for every bearer-protected route. */
const bearerProtected: readonly TableGrant[] = [clientRecords, rateCounters];
/** Subscriptions: created and deleted in a transaction with the client's count item (UpdateItem), listed by Query. */
const subscriptionsManaged: TableGrant = {
  table: webhooksTable,
  access: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
};
/**
 * The delivery log as a client reads it: attempts and dead deliveries by Query, one delivery by GetItem to retry it;
 * a recovery claims each dead delivery and books its subscription's recovery schedule by UpdateItem.
 */
const deliveryLogRead: TableGrant = { table: deliveriesTable, access: { actions: ['GetItem', 'Query', 'UpdateItem'] } };
/** A client's watches, by the index that lists them per client. */
const watchesByClient: TableGrant = { table: watchesTable, access: { actions: [], queryIndexes: [WATCHES_BY_CLIENT_INDEX] } };
/** A company's watchers, by the table's own key. */
const watchersOfCompany: TableGrant = { table: watchesTable, access: { actions: ['Query'] } };

export const functions: readonly FunctionSpec[] = [
  {
    id: 'token',
    entry: 'functions/token/handler.ts',
    description: 'OAuth 2.0 client-credentials token endpoint and the public JWKS',
    routes: [
      { method: 'POST', path: '/v1/oauth/token', access: 'client-credentials' },
      { method: 'GET', path: '/v1/.well-known/jwks.json', access: 'public' },
    ],
    tables: bearerProtected,
    signingKey: 'sign',
  },
  {
    id: 'keyRotation',
    entry: 'functions/key-rotation/handler.ts',
    description: 'Secrets Manager rotation of the token signing keys; publishes the public JWKS',
    routes: [],
    tables: [{ table: clientsTable, access: { actions: ['PutItem'] }, writeKeyPrefixes: [SIGNING_KEYS_PK] }],
    signingKey: 'rotate',
    timeoutSeconds: 30,
    // No reserved concurrency, here or on any function: Lambda refuses a reservation that leaves the account fewer
    // than 100 unreserved executions, so it fails the first deploy into a new account (quotas of 10 to 50). None is
    // needed: Secrets Manager invokes the rotation's steps one after another and refuses to start another rotation of
    // the secret while one is under way (AWSPENDING on a version other than AWSCURRENT), and a throttled step is
    // retried with the whole rotation; its ErrorRate ticket and the AccountConcurrency alarm say when that happens.
  },
  {
    id: 'apiDocument',
    entry: 'functions/openapi/handler.ts',
    description: "The API's OpenAPI 3.1 document, public and cacheable",
    routes: [{ method: 'GET', path: '/v1/openapi.json', access: 'public' }],
    tables: [],
    memoryMb: 256,
  },
  {
    id: 'search',
    entry: 'functions/search/handler.ts',
    description: 'Company name search over the name index in the companies table',
    routes: [{ method: 'GET', path: '/v1/search', access: 'bearer' }],
    tables: [
      ...bearerProtected,
      // The company a number names by GetItem, the word index by Query, the spelling vocabulary by BatchGetItem.
      { table: companiesTable, access: { actions: ['GetItem', 'Query', 'BatchGetItem'] } },
    ],
  },
  {
    id: 'profile',
    entry: 'functions/profile/handler.ts',
    description: "Company profile by number; records the caller's watch of the company",
    routes: [{ method: 'GET', path: '/v1/profile/{companyNumber}', access: 'bearer' }],
    tables: [
      ...bearerProtected,
      { table: companiesTable, access: { actions: ['GetItem'] } },
      // UpdateItem records the watch (and puts back its time when the call is refused); DeleteItem only undoes a watch
      // that a fetch of an unknown company created.
      { table: watchesTable, access: { actions: ['UpdateItem', 'DeleteItem'] } },
    ],
  },
  {
    id: 'watches',
    entry: 'functions/watches/handler.ts',
    description: 'Lists the companies the caller watches (its profile fetches)',
    routes: [{ method: 'GET', path: '/v1/watches', access: 'bearer' }],
    tables: [...bearerProtected, watchesByClient],
  },
  {
    id: 'events',
    entry: 'functions/events/handler.ts',
    description: "The caller's events of the last 30 days, newest first, filtered as asked",
    routes: [{ method: 'GET', path: '/v1/events', access: 'bearer' }],
    tables: [...bearerProtected, { table: eventsTable, access: { actions: ['Query'] } }],
  },
  {
    id: 'webhooks',
    entry: 'functions/webhooks/handler.ts',
    description: "A client's webhook subscriptions: register, change, rotate the secret, test, and read, retry and recover deliveries",
    routes: [
      { method: 'POST', path: '/v1/webhooks', access: 'bearer' },
      { method: 'GET', path: '/v1/webhooks', access: 'bearer' },
      { method: 'GET', path: '/v1/webhooks/{id}', access: 'bearer' },
      { method: 'PATCH', path: '/v1/webhooks/{id}', access: 'bearer' },
      { method: 'DELETE', path: '/v1/webhooks/{id}', access: 'bearer' },
      { method: 'POST', path: '/v1/webhooks/{id}/rotate-secret', access: 'bearer' },
      { method: 'POST', path: '/v1/webhooks/{id}/test', access: 'bearer' },
      { method: 'GET', path: '/v1/webhooks/{id}/deliveries', access: 'bearer' },
      { method: 'POST', path: '/v1/webhooks/{id}/deliveries/{deliveryId}/retry', access: 'bearer' },
      { method: 'POST', path: '/v1/webhooks/{id}/recover', access: 'bearer' },
    ],
    tables: [...bearerProtected, subscriptionsManaged, deliveryLogRead],
    queues: [{ queue: deliveriesQueue, access: 'send' }],
    loopbackReceivers: true,
    webhookSecrets: 'seal',
  },
  {
    id: 'workspace',
    entry: 'functions/workspace/handler.ts',
    description:
      "The client workspace's JSON API: people's sign-in and sessions, and their client's webhooks, deliveries, watches and events",
    routes: [
      ...(['GET', 'POST', 'PATCH', 'DELETE'] as const).map((method) => ({
        method,
        path: '/workspace/api/{proxy+}',
        access: 'workspace-session' as const,
      })),
      ...['/workspace/api/sign-in', '/workspace/api/invitations/accept', '/workspace/api/passkey-sign-in'].map((path) => ({
        method: 'POST' as const,
        path,
        access: 'workspace-session' as const,
        throttle: SIGN_IN_THROTTLE,
      })),
    ],
    tables: [
      // Client records (name, status, rate limit); every signed-in call counted against the client's limit, test
      // events and retries in their own bucket.
      ...bearerProtected,
      // People, invitations and passkeys by GetItem, a session and its person together by BatchGetItem, a person's
      // passkeys by Query; sessions and challenges put and deleted; sign-in counters and passwords updated.
      { table: workspaceTable, access: { actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] } },
      subscriptionsManaged,
      deliveryLogRead,
      // A client's watches by its index; whether it watches one company by GetItem.
      { table: watchesTable, access: { actions: ['GetItem'], queryIndexes: [WATCHES_BY_CLIENT_INDEX] } },
      // A watched company's profile, and the names of a page of watched companies in one batched read.
      { table: companiesTable, access: { actions: ['GetItem', 'BatchGetItem'] } },
      // The client's events feed, read as GET /v1/events reads it: its own partition, by Query alone.
      { table: eventsTable, access: { actions: ['Query'] } },
    ],
    queues: [{ queue: deliveriesQueue, access: 'send' }],
    loopbackReceivers: true,
    plainHttpCookies: true,
    webhookSecrets: 'seal',
  },
  {
    id: 'changeDetector',
    entry: 'functions/change-detector/handler.ts',
    description: 'Companies stream: diffs each rewritten profile into change events and queues their fan-out',
    routes: [],
    // Whether anyone watches the company at all, before queueing its fan-out.
    tables: [watchersOfCompany],
    queues: [{ queue: fanoutQueue, access: 'send' }],
    eventSources: [
      {
        kind: 'stream',
        table: companiesTable,
        filter: PROFILE_CHANGE_FILTER,
        batchSize: 100,
        maxRetryAttempts: 10,
        bisectBatchOnError: true,
      },
    ],
    timeoutSeconds: 30,
  },
  {
    id: 'streamReplay',
    entry: 'functions/stream-replay/handler.ts',
    description: 'Reads back the companies stream batches the detector gave up on, and detects their changes again',
    routes: [],
    tables: [
      // The pointed records, read back from the stream; then what the detector reads.
      { table: companiesTable, access: { actions: [], streamReads: ['GetShardIterator', 'GetRecords'] } },
      watchersOfCompany,
    ],
    queues: [{ queue: fanoutQueue, access: 'send' }],
    eventSources: [{ kind: 'queue', queue: streamFailuresQueue, batchSize: 1, maxConcurrency: 2 }],
    timeoutSeconds: 60,
  },
  {
    id: 'fanout',
    entry: 'functions/fanout/handler.ts',
    description: "Fans a change event out to a page of the company's watchers' ACTIVE subscriptions at a time",
    routes: [],
    tables: [
      watchersOfCompany,
      // The watchers' active subscription ids and filters, from their clients' count items.
      { table: webhooksTable, access: { actions: ['BatchGetItem'] } },
      // The event, for each watcher of the page to read back from GET /v1/events.
      { table: eventsTable, access: { actions: ['BatchWriteItem'] } },
    ],
    queues: [
      // Each step queues the next page of watchers as a task of its own; its event source brings the consuming grant.
      { queue: fanoutQueue, access: 'send' },
      { queue: deliveriesQueue, access: 'send' },
    ],
    eventSources: [{ kind: 'queue', queue: fanoutQueue, batchSize: 1, maxConcurrency: 5 }],
    timeoutSeconds: 60,
  },
  {
    id: 'sender',
    entry: 'functions/sender/handler.ts',
    description: 'Signs and POSTs webhook deliveries, logs every attempt and schedules retries',
    routes: [],
    tables: [
      // A batch's subscriptions in one read; failing, healthy and disabled marked by UpdateItem.
      { table: webhooksTable, access: { actions: ['BatchGetItem', 'UpdateItem'] } },
      // A batch's earlier delivery records in one read; each attempt logged with its delivery in one batched write.
      { table: deliveriesTable, access: { actions: ['BatchGetItem', 'BatchWriteItem'] } },
    ],
    queues: [{ queue: deliveriesQueue, access: 'consume' }],
    eventSources: [{ kind: 'queue', queue: deliveriesQueue, batchSize: 10, maxConcurrency: 10, changesVisibility: true }],
    loopbackReceivers: true,
    fixedEgress: true,
    timeoutSeconds: 30,
    webhookSecrets: 'open',
  },
];

/** The register import's table use: what DynamoCompanyStore sends to save a batch of profiles and keep the vocabulary. */
const profileWrites: TableGrant = {
  table: companiesTable,
  access: {
    // Stored hashes and new companies by the batch (BatchGetItem, BatchWriteItem); a changed company's version-guarded
    // transaction (PutItem, DeleteItem of its index items); vocabulary words by Query and UpdateItem.
    actions: ['BatchGetItem', 'BatchWriteItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
  },
};

/**
 * The register's functions: the import's steps, run by its Step Functions state machine
 * (infra/constructs/register-import.ts), and the feeds that bring register changes in on a schedule
 * (infra/constructs/register-download.ts, register-stream.ts). Never a route or an event source, and
 * never the local runtime: they run shared/register code (the import, the stream consumer) that the CLI
 * and the local runtime run in-process. Granted like the catalogue's functions, and checked the same way.
 */
export const registerImportFunctions: readonly FunctionSpec[] = [
  {
    id: 'registerSplit',
    entry: 'functions/register-import/split.ts',
    description: 'Register import: cuts an uploaded register file into chunks of whole records and writes the manifest',
    routes: [],
    tables: [],
    uploads: { read: [OBJECT_PATTERNS.uploads], write: [OBJECT_PATTERNS.chunks, OBJECT_PATTERNS.manifests, OBJECT_PATTERNS.splitReports] },
    // The Companies House zip (about 470 MB) is saved whole: its directory is at its end.
    ephemeralStorageMb: 2048,
    memoryMb: 2048,
    timeoutSeconds: 900,
  },
  {
    id: 'registerBatch',
    entry: 'functions/register-import/batch.ts',
    description: 'Register import: imports one chunk of the register into the companies table',
    routes: [],
    tables: [profileWrites],
    uploads: { read: [OBJECT_PATTERNS.chunks], write: [] },
    memoryMb: 1024,
    timeoutSeconds: 900,
  },
  {
    id: 'registerSweep',
    entry: 'functions/register-import/sweep.ts',
    description: 'Register import: marks gone the companies of one scan segment that a whole snapshot left out',
    routes: [],
    // The scan, then each gone company saved through the same store as the import.
    tables: [{ table: companiesTable, access: { actions: ['Scan', ...profileWrites.access.actions] } }],
    timeoutSeconds: 900,
  },
  {
    id: 'registerSummary',
    entry: 'functions/register-import/summary.ts',
    description: 'Register import: adds up the batches and writes summary.json beside the upload',
    routes: [],
    tables: [],
    uploads: {
      read: [OBJECT_PATTERNS.manifests, OBJECT_PATTERNS.splitReports, OBJECT_PATTERNS.mapResults],
      write: [OBJECT_PATTERNS.summaries],
    },
    memoryMb: 1024,
    timeoutSeconds: 300,
  },
  {
    id: 'registerDownload',
    entry: 'functions/register-download/handler.ts',
    description: 'Register feed: fetches the CRO companies file weekly to the uploads bucket and starts its import',
    routes: [],
    tables: [],
    // The file goes up as it comes down, in parts: no /tmp, and memory for four 5 MB parts at a time.
    uploads: { read: [], write: [OBJECT_PATTERNS.uploads] },
    // About 830,000 rows, some 200 MB: minutes from the portal, with room for a slow day.
    timeoutSeconds: 900,
  },
  {
    id: 'registerStream',
    entry: 'functions/register-stream/handler.ts',
    description: 'Register feed: consumes one Companies House stream under its lease until shortly before its timeout, then hands it over',
    routes: [],
    tables: [
      // The checkpoint and the lease read by GetItem; the lease taken and renewed, the checkpoint and gaps written by
      // PutItem; the lease handed over by DeleteItem; the checkpoint moved in a transaction that checks the lease.
      { table: registerStreamsTable, access: { actions: ['GetItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'] } },
      // The batch's companies by BatchGetItem, one again by GetItem after a write lost to another writer; a changed
      // company's version-guarded transaction (PutItem, DeleteItem of its index items); vocabulary words by Query and
      // UpdateItem when a name changes.
      { table: companiesTable, access: { actions: ['BatchGetItem', 'GetItem', 'PutItem', 'DeleteItem', 'Query', 'UpdateItem'] } },
    ],
    // Waiting on a socket most of the time: a quarter of a GB is enough CPU for a stream's JSON lines.
    memoryMb: 256,
    // Lambda's longest: one invocation holds the connection for 14 of its 15 minutes (infra/constructs/register-stream.ts).
    timeoutSeconds: 900,
  },
];

/**
 * The accounts import's functions (infra/constructs/accounts-import.ts): the daily download, and the
 * steps of the state machine that reads an Accounts Data Product archive from the uploads bucket and
 * stores its figures in the profiles. Granted like the register's, and checked the same way.
 */
export const accountsImportFunctions: readonly FunctionSpec[] = [
  {
    id: 'accountsSplit',
    entry: 'functions/accounts-import/split.ts',
    description: "Accounts import: reads an archive's central directory by ranged GETs and writes the Map's windows",
    routes: [],
    tables: [],
    uploads: { read: [ACCOUNTS_OBJECT_PATTERNS.archives], write: [ACCOUNTS_OBJECT_PATTERNS.manifests] },
    // A monthly archive's directory (some 30 MB for 300,000 entries) read in 4 MB blocks, six kept: memory to spare.
    memoryMb: 1024,
    timeoutSeconds: 300,
  },
  {
    id: 'accountsItem',
    entry: 'functions/accounts-import/item.ts',
    description: "Accounts import: reads one window of an archive's filings from S3 and stores their figures in the profiles",
    routes: [],
    // The held profiles by BatchGetItem, one again by GetItem when a window holds two filings of a company; a changed
    // profile's version-guarded transaction (PutItem, DeleteItem of its index items), as the register batch writes it.
    tables: [{ table: companiesTable, access: { actions: ['GetItem', ...profileWrites.access.actions] } }],
    uploads: { read: [ACCOUNTS_OBJECT_PATTERNS.archives], write: [] },
    // The reader is CPU-bound: a full vCPU at 1,769 MB; 1,024 MB gives some 0.6 of one.
    memoryMb: 1769,
    timeoutSeconds: 300,
  },
  {
    id: 'accountsSummary',
    entry: 'functions/accounts-import/summary.ts',
    description: 'Accounts import: adds up the windows and writes summary.json beside the archive',
    routes: [],
    tables: [],
    uploads: {
      read: [ACCOUNTS_OBJECT_PATTERNS.manifests, ACCOUNTS_OBJECT_PATTERNS.mapResults],
      write: [ACCOUNTS_OBJECT_PATTERNS.summaries],
    },
    timeoutSeconds: 120,
  },
  {
    id: 'accountsDownload',
    entry: 'functions/accounts-download/handler.ts',
    description: "Accounts feed: fetches the last days' Accounts Data Product archives to the uploads bucket and starts their import",
    routes: [],
    tables: [],
    // Streamed up as it comes down, in parts: no /tmp. Whether an archive is held is listed (its own grant, in the construct).
    uploads: { read: [], write: [ACCOUNTS_OBJECT_PATTERNS.archives] },
    // Up to a week of 30 MB daily archives, or one 500 MB monthly archive an operator names.
    timeoutSeconds: 900,
  },
];

/**
 * The SQS actions a function's role holds, by queue id: 'send' grants SendMessage; a consumed queue
 * (a 'consume' grant or a queue event source) what its mapping calls, and ChangeMessageVisibility
 * when the code changes visibility. The stack grants these, the local runtime enforces them.
 */
export function queueActionsOf(spec: FunctionSpec): Map<string, { queue: QueueDefinition; actions: Set<QueueAction> }> {
  const byQueue = new Map<string, { queue: QueueDefinition; actions: Set<QueueAction> }>();
  const add = (queue: QueueDefinition, actions: readonly QueueAction[]) => {
    const entry = byQueue.get(queue.id) ?? { queue, actions: new Set<QueueAction>() };
    for (const action of actions) entry.actions.add(action);
    byQueue.set(queue.id, entry);
  };
  for (const grant of spec.queues ?? []) add(grant.queue, grant.access === 'send' ? ['SendMessage'] : QUEUE_MAPPING_ACTIONS);
  for (const source of spec.eventSources ?? []) {
    if (source.kind !== 'queue') continue;
    add(source.queue, [...QUEUE_MAPPING_ACTIONS, ...(source.changesVisibility ? (['ChangeMessageVisibility'] as const) : [])]);
  }
  return byQueue;
}

import { SIGNING_KEYS_PK } from '../shared/auth/published-jwks-store';
import { RATE_KEY_PREFIX } from '../shared/auth/rate-limit';
import { deliveriesQueue, fanoutQueue, type QueueDefinition } from '../shared/queues/queues';
import {
  clientsTable,
  companiesTable,
  deliveriesTable,
  type TableDefinition,
  watchesTable,
  webhooksTable,
  workspaceTable,
} from '../shared/storage/tables';
import { PROFILE_CHANGE_FILTER, type StreamFilter } from '../shared/webhooks/profile-stream-record';

/**
 * Every function of the service, described once. The CDK stack builds the Lambda functions, their
 * least-privilege grants and API routes from this list; the local runtime serves the same routes
 * with the same handler modules and environment variable names.
 */
export type TableAccess =
  /** GetItem, Query, BatchGetItem on the table and its indexes. */
  | 'read'
  /** read plus PutItem, UpdateItem, DeleteItem, BatchWriteItem. */
  | 'readwrite'
  /** PutItem and UpdateItem only. */
  | 'write';

export interface TableGrant {
  readonly table: TableDefinition;
  readonly access: TableAccess;
  /**
   * Restricts writes to items whose partition key starts with one of these prefixes
   * (IAM condition dynamodb:LeadingKeys), e.g. rate-limit counters only.
   */
  readonly writeKeyPrefixes?: readonly string[];
}

export interface QueueGrant {
  readonly queue: QueueDefinition;
  /** 'send' passes the queue URL in the definition's variable; 'consume' also lets the function change visibility. */
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
  /** Public by design: the JWKS that verifies tokens. */
  | 'public';

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
  /** Session cookies without Secure under the local runtime's plain HTTP on loopback (never on AWS: see shared/workspace/config). */
  readonly plainHttpCookies?: boolean;
  /** 'sign' reads the private signing keys; 'rotate' is the Secrets Manager rotation function. */
  readonly signingKey?: 'sign' | 'rotate';
  readonly memoryMb?: number;
  readonly timeoutSeconds?: number;
  /**
   * Instances that may run at once, reserved on AWS and enforced locally; beyond them invocations are
   * throttled. Unset: AWS scales with the account's concurrency, locally LOCAL_CONCURRENCY applies.
   */
  readonly reservedConcurrency?: number;
}

/** What a function gets when its spec sets no memory or timeout, deployed and local alike. */
export const FUNCTION_DEFAULTS = { memoryMb: 512, timeoutSeconds: 10 } as const;

/** Protected routes count calls in the clients table and read the client record and public keys. */
const bearerProtected: TableGrant = { table: clientsTable, access: 'write', writeKeyPrefixes: [RATE_KEY_PREFIX] };
const clientsRead: TableGrant = { table: clientsTable, access: 'read' };

export const functions: readonly FunctionSpec[] = [
  {
    id: 'token',
    entry: 'functions/token/handler.ts',
    description: 'OAuth 2.0 client-credentials token endpoint and the public JWKS',
    routes: [
      { method: 'POST', path: '/v1/oauth/token', access: 'client-credentials' },
      { method: 'GET', path: '/v1/.well-known/jwks.json', access: 'public' },
    ],
    tables: [clientsRead, bearerProtected],
    signingKey: 'sign',
  },
  {
    id: 'keyRotation',
    entry: 'functions/key-rotation/handler.ts',
    description: 'Secrets Manager rotation of the token signing keys; publishes the public JWKS',
    routes: [],
    tables: [{ table: clientsTable, access: 'write', writeKeyPrefixes: [SIGNING_KEYS_PK] }],
    signingKey: 'rotate',
    timeoutSeconds: 30,
    // Never starved by a burst of traffic elsewhere in the account: a rotation that cannot run leaves the key unrotated.
    reservedConcurrency: 1,
  },
  {
    id: 'search',
    entry: 'functions/search/handler.ts',
    description: 'Company name search over the name index in the companies table',
    routes: [{ method: 'GET', path: '/v1/search', access: 'bearer' }],
    tables: [clientsRead, bearerProtected, { table: companiesTable, access: 'read' }],
  },
  {
    id: 'profile',
    entry: 'functions/profile/handler.ts',
    description: "Company profile by number; records the caller's watch of the company",
    routes: [{ method: 'GET', path: '/v1/profile/{companyNumber}', access: 'bearer' }],
    tables: [
      clientsRead,
      bearerProtected,
      { table: companiesTable, access: 'read' },
      // UpdateItem records the watch; DeleteItem (hence readwrite) only undoes a watch that a fetch of an unknown company created.
      { table: watchesTable, access: 'readwrite' },
    ],
  },
  {
    id: 'watches',
    entry: 'functions/watches/handler.ts',
    description: 'Lists the companies the caller watches (its profile fetches)',
    routes: [{ method: 'GET', path: '/v1/watches', access: 'bearer' }],
    tables: [clientsRead, bearerProtected, { table: watchesTable, access: 'read' }],
  },
  {
    id: 'webhooks',
    entry: 'functions/webhooks/handler.ts',
    description: "A client's webhook subscriptions: register, change, rotate the secret, test, and read and retry deliveries",
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
    ],
    tables: [clientsRead, bearerProtected, { table: webhooksTable, access: 'readwrite' }, { table: deliveriesTable, access: 'read' }],
    queues: [{ queue: deliveriesQueue, access: 'send' }],
    loopbackReceivers: true,
  },
  {
    id: 'workspace',
    entry: 'functions/workspace/handler.ts',
    description: "The client workspace's JSON API: people's sign-in and sessions, and their client's webhooks, deliveries and watches",
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
      // Client names; the workspace never counts API calls.
      clientsRead,
      { table: workspaceTable, access: 'readwrite' },
      { table: webhooksTable, access: 'readwrite' },
      { table: deliveriesTable, access: 'read' },
      { table: watchesTable, access: 'read' },
      { table: companiesTable, access: 'read' },
    ],
    queues: [{ queue: deliveriesQueue, access: 'send' }],
    loopbackReceivers: true,
    plainHttpCookies: true,
  },
  {
    id: 'changeDetector',
    entry: 'functions/change-detector/handler.ts',
    description: 'Companies stream: diffs each rewritten profile into change events and queues their fan-out',
    routes: [],
    tables: [{ table: watchesTable, access: 'read' }],
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
    id: 'fanout',
    entry: 'functions/fanout/handler.ts',
    description: "Fans a change event out to a page of the company's watchers' ACTIVE subscriptions at a time",
    routes: [],
    tables: [
      { table: watchesTable, access: 'read' },
      { table: webhooksTable, access: 'read' },
    ],
    queues: [
      { queue: fanoutQueue, access: 'consume' },
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
      { table: webhooksTable, access: 'readwrite' },
      { table: deliveriesTable, access: 'readwrite' },
    ],
    queues: [{ queue: deliveriesQueue, access: 'consume' }],
    eventSources: [{ kind: 'queue', queue: deliveriesQueue, batchSize: 10, maxConcurrency: 10 }],
    loopbackReceivers: true,
    timeoutSeconds: 30,
  },
];

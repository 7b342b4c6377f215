import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { KMSServiceException } from '@aws-sdk/client-kms';
import { SQSServiceException } from '@aws-sdk/client-sqs';
import type { AwsClientHook, AwsService, HookableClient } from '../shared/aws/client-hooks';
import { ENCRYPTION_CONTEXT_KEYS, PURPOSE_CONTEXT } from '../shared/crypto/webhook-secrets-key';
import { isKeyedWrite, type KeyAction, type QueueAction, type StreamAction, type TableAction } from '../shared/iam/actions';

/**
 * The local runtime's stand-in for IAM. DynamoDB Local and fauxqs check no permissions, so without
 * this a function would pass every local test whatever its role allows. The runtime hands each
 * function its catalogue grants in LOCAL_GRANTS_VARIABLE and, before it loads the handler, installs
 * a hook on the function's AWS clients (shared/aws/clients.ts) that refuses, as AWS would, any call
 * those grants do not allow. None of this is in a deployed bundle, where IAM itself decides.
 */
export const LOCAL_GRANTS_VARIABLE = 'BUREAU_LOCAL_GRANTS';

/**
 * A folder where each function instance writes every distinct call it made (allowed or refused), so
 * a test can compare what the code sends with what the catalogue grants.
 */
export const CALL_LOG_VARIABLE = 'BUREAU_CALL_LOG';

export interface LocalTableGrant {
  /** The table's logical id (shared/storage/tables.ts). */
  readonly id: string;
  /** Its physical name, as the calls name it. */
  readonly name: string;
  readonly partitionKey: string;
  readonly actions: readonly TableAction[];
  readonly queryIndexes?: readonly string[];
  readonly writeKeyPrefixes?: readonly string[];
  readonly streamReads?: readonly StreamAction[];
}

export interface LocalQueueGrant {
  /** The queue's logical id (shared/queues/queues.ts). */
  readonly id: string;
  /** Its URL, as the calls name it. */
  readonly url: string;
  readonly actions: readonly QueueAction[];
}

export interface LocalGrants {
  /** KMS actions on the key that seals webhook signing secrets, for data keys of their purpose only (the stack's condition). */
  readonly kms?: readonly KeyAction[];
  /** The catalogue id: it names the function in the call log. */
  readonly functionId: string;
  /** The function's name: refusals name its role and session after it, as Lambda's do. */
  readonly functionName: string;
  readonly accountId: string;
  readonly tables: readonly LocalTableGrant[];
  readonly queues: readonly LocalQueueGrant[];
}

/** One call as IAM authorises it: an action on one table, index or queue (a batch is one call per item). */
export type AuthorisedCall =
  | {
      readonly service: 'dynamodb';
      readonly action: string;
      /** Physical table name; absent for calls that name no table. */
      readonly table?: string;
      readonly index?: string;
      /** The item's key or the whole item, for the dynamodb:LeadingKeys condition on writes. */
      readonly key?: Readonly<Record<string, unknown>>;
      /** A read of the table's stream, granted on the stream's ARN: the stream's label, the ARN's last part. */
      readonly stream?: string;
    }
  | { readonly service: 'sqs'; readonly action: string; readonly queueUrl?: string }
  | { readonly service: 'kms'; readonly action: string; readonly encryptionContext?: Readonly<Record<string, string>> };

/** A line of the call log. */
export interface LoggedCall {
  readonly function: string;
  readonly service: 'dynamodb' | 'sqs' | 'kms';
  /** The table or queue id; the physical name or URL when it is none the function was granted. */
  readonly resource: string;
  readonly index?: string;
  readonly action: string;
  readonly allowed: boolean;
}

type Denial = (message: string) => Error;
type Input = Record<string, unknown>;

/** The grants in the environment, or undefined where there are none to enforce (on AWS, or a client built outside a function). */
function localGrantCheck(env: NodeJS.ProcessEnv): LocalGrantCheck | undefined {
  const raw = env[LOCAL_GRANTS_VARIABLE];
  if (!raw) return undefined;
  return new LocalGrantCheck(JSON.parse(raw) as LocalGrants, env.AWS_REGION ?? 'eu-west-2', env[CALL_LOG_VARIABLE]);
}

/**
 * Where an SDK client checks each command against the grants: once it is marshalled (a document
 * client's commands too) and before the retry step, so a refusal is final as AWS's is.
 */
const LOCAL_GRANT_CHECK_STEP = { step: 'build', priority: 'high', name: 'localGrantCheck' } as const;

/** Each service's calls as IAM authorises them, and its refusal as the SDK reports it: a client error, never retried. */
const SERVICES: Partial<Record<AwsService, { callsOf: (commandName: string, input: Input) => AuthorisedCall[]; deny: Denial }>> = {
  dynamodb: {
    callsOf: (commandName, input) => dynamoCallsOf(commandName, input),
    deny: (message) =>
      new DynamoDBServiceException({ name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400 }, message }),
  },
  kms: {
    callsOf: (commandName, input) => [
      {
        service: 'kms',
        action: commandName.replace(/Command$/, ''),
        ...(input.EncryptionContext ? { encryptionContext: input.EncryptionContext as Record<string, string> } : {}),
      },
    ],
    deny: (message) =>
      new KMSServiceException({ name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400 }, message }),
  },
  sqs: {
    callsOf: (commandName, input) => sqsCallsOf(commandName, input),
    // SQS reports a denied call with the query-compatible code AccessDenied, which is the name the SDK gives the error.
    deny: (message) => new SQSServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 }, message }),
  },
};

/**
 * The hook that makes every client of a function refuse, with the service's own error, each command
 * the environment's grants do not allow; undefined where there are none to enforce.
 */
export function localGrantHook(env: NodeJS.ProcessEnv): AwsClientHook | undefined {
  const check = localGrantCheck(env);
  if (!check) return undefined;
  return (client, service) => {
    const rules = SERVICES[service];
    if (!rules) return;
    client.middlewareStack.add(
      <Args extends { input: object }, Result>(next: (args: Args) => Promise<Result>, context: { commandName?: string }) =>
        async (args: Args): Promise<Result> => {
          check.authorize(rules.callsOf(context.commandName ?? '', args.input as Input), rules.deny);
          return next(args);
        },
      LOCAL_GRANT_CHECK_STEP,
    );
  };
}

/** One client checked against the environment's grants, as a function's own would be: for tests and tools. */
export function withLocalGrants<Client extends HookableClient>(client: Client, service: AwsService, env: NodeJS.ProcessEnv): Client {
  localGrantHook(env)?.(client, service);
  return client;
}

class LocalGrantCheck {
  private readonly logged = new Set<string>();
  private readonly logFile?: string;

  constructor(
    private readonly grants: LocalGrants,
    private readonly region: string,
    logDir?: string,
  ) {
    if (logDir) {
      mkdirSync(logDir, { recursive: true });
      // One file per instance: instances of a function run in parallel threads and never share a write.
      this.logFile = join(logDir, `${grants.functionId}.${process.pid}.${threadId}.jsonl`);
    }
  }

  /** Throws the service's refusal for the first call the grants do not allow; every call is logged first. */
  authorize(calls: readonly AuthorisedCall[], deny: Denial): void {
    const refused = calls.map((call) => ({ call, allowed: this.allows(call) }));
    for (const { call, allowed } of refused) this.log(call, allowed);
    const first = refused.find(({ allowed }) => !allowed);
    if (first) throw deny(this.refusal(first.call));
  }

  private allows(call: AuthorisedCall): boolean {
    if (call.service === 'kms') {
      // The stack grants the key's use only under the kms:EncryptionContext condition of its purpose,
      // and kms:EncryptionContextKeys limited to the names the stack's contexts use.
      const purposeHeld = Object.entries(PURPOSE_CONTEXT).every(([name, value]) => call.encryptionContext?.[name] === value);
      const namesKnown = Object.keys(call.encryptionContext ?? {}).every((name) => ENCRYPTION_CONTEXT_KEYS.includes(name));
      return purposeHeld && namesKnown && (this.grants.kms ?? []).includes(call.action as KeyAction);
    }
    if (call.service === 'sqs') {
      return this.grants.queues.some((grant) => grant.url === call.queueUrl && (grant.actions as readonly string[]).includes(call.action));
    }
    const grants = this.grants.tables.filter((grant) => grant.name === call.table);
    if (call.stream !== undefined)
      return grants.some((grant) => (grant.streamReads as readonly string[] | undefined)?.includes(call.action));
    if (call.index !== undefined)
      return call.action === 'Query' && grants.some((grant) => grant.queryIndexes?.includes(call.index as string));
    return grants.some((grant) => {
      if (!(grant.actions as readonly string[]).includes(call.action)) return false;
      if (!isKeyedWrite(call.action) || !grant.writeKeyPrefixes?.length) return true;
      const leadingKey = keyText(call.key?.[grant.partitionKey]);
      return leadingKey !== undefined && grant.writeKeyPrefixes.some((prefix) => leadingKey.startsWith(prefix));
    });
  }

  /** AWS's own wording, so a refusal reads locally as it would in a deployed function's log. */
  private refusal(call: AuthorisedCall): string {
    const principal = `arn:aws:sts::${this.grants.accountId}:assumed-role/${this.grants.functionName}/${this.grants.functionName}`;
    if (call.service === 'kms') {
      return notAuthorized(
        principal,
        `kms:${call.action}`,
        `arn:aws:kms:${this.region}:${this.grants.accountId}:key/${WEBHOOK_SECRETS_RESOURCE}`,
      );
    }
    if (call.service === 'sqs') {
      const action = `sqs:${call.action.toLowerCase()}`;
      const queue = call.queueUrl?.split('/').at(-1);
      return notAuthorized(principal, action, queue ? `arn:aws:sqs:${this.region}:${this.grants.accountId}:${queue}` : '*');
    }
    const action = `dynamodb:${call.action}`;
    const within = call.stream !== undefined ? `/stream/${call.stream}` : call.index !== undefined ? `/index/${call.index}` : '';
    const resource = call.table ? `arn:aws:dynamodb:${this.region}:${this.grants.accountId}:table/${call.table}${within}` : '*';
    return notAuthorized(principal, action, resource);
  }

  private log(call: AuthorisedCall, allowed: boolean): void {
    if (!this.logFile) return;
    const resource =
      call.service === 'kms'
        ? WEBHOOK_SECRETS_RESOURCE
        : call.service === 'sqs'
          ? (this.grants.queues.find((grant) => grant.url === call.queueUrl)?.id ?? call.queueUrl ?? '*')
          : (this.grants.tables.find((grant) => grant.name === call.table)?.id ?? call.table ?? '*');
    const line: LoggedCall = {
      function: this.grants.functionId,
      service: call.service,
      resource,
      ...(call.service === 'dynamodb' && call.index !== undefined ? { index: call.index } : {}),
      action: call.action,
      allowed,
    };
    const text = JSON.stringify(line);
    if (this.logged.has(text)) return;
    this.logged.add(text);
    appendFileSync(this.logFile, `${text}\n`);
  }
}

/** How the call log and refusals name the one KMS key the functions use. */
export const WEBHOOK_SECRETS_RESOURCE = 'webhook-secrets';

const notAuthorized = (principal: string, action: string, resource: string) =>
  `User: ${principal} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`;

/** A key attribute's text, marshalled ({ S: … }) or not: where the check runs, a document client's input may be either. */
function keyText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value && typeof value === 'object') {
    const attribute = value as { S?: unknown; N?: unknown };
    if (typeof attribute.S === 'string') return attribute.S;
    if (typeof attribute.N === 'string') return attribute.N;
  }
  return undefined;
}

const records = (value: unknown): Input[] => (Array.isArray(value) ? (value as Input[]) : []);
const entries = (value: unknown): Array<[string, unknown]> => (value && typeof value === 'object' ? Object.entries(value) : []);

/** Transaction entries as the item actions IAM checks them as. */
const TRANSACT_WRITE_ENTRIES: Readonly<Record<string, TableAction>> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** The calls IAM authorises for one DynamoDB command. */
function dynamoCallsOf(commandName: string, input: Input): AuthorisedCall[] {
  const operation = commandName.replace(/Command$/, '');
  const call = (action: string, table: unknown, key?: unknown, index?: unknown): AuthorisedCall => ({
    service: 'dynamodb',
    action,
    ...(typeof table === 'string' ? { table } : {}),
    ...(typeof index === 'string' ? { index } : {}),
    ...(key && typeof key === 'object' ? { key: key as Input } : {}),
  });
  const streamCall = (action: string, arn: unknown): AuthorisedCall => {
    const stream = typeof arn === 'string' ? STREAM_ARN.exec(arn) : null;
    return { service: 'dynamodb', action, ...(stream ? { table: stream[1], stream: stream[2] } : { stream: '*' }) };
  };
  switch (operation) {
    case 'PutItem':
      return [call('PutItem', input.TableName, input.Item)];
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [call(operation, input.TableName, input.Key)];
    case 'Query':
    case 'Scan':
      return [call(operation, input.TableName, undefined, input.IndexName)];
    case 'BatchGetItem':
      return entries(input.RequestItems).map(([table]) => call('BatchGetItem', table));
    case 'BatchWriteItem':
      return entries(input.RequestItems).flatMap(([table, requests]) =>
        records(requests).map((request) => {
          const put = request.PutRequest as Input | undefined;
          const remove = request.DeleteRequest as Input | undefined;
          return call('BatchWriteItem', table, put?.Item ?? remove?.Key);
        }),
      );
    case 'TransactWriteItems':
      return records(input.TransactItems).flatMap((item) =>
        entries(item).flatMap(([kind, entry]) => {
          const action = TRANSACT_WRITE_ENTRIES[kind];
          const body = entry as Input;
          return action ? [call(action, body.TableName, body.Item ?? body.Key)] : [call(kind, body.TableName)];
        }),
      );
    case 'TransactGetItems':
      return records(input.TransactItems).map((item) => call('GetItem', (item.Get as Input | undefined)?.TableName));
    // IAM checks these on the stream's ARN; locally the table is read from it (DynamoDB Local's
    // iterators begin with that ARN too).
    case 'DescribeStream':
    case 'GetShardIterator':
      return [streamCall(operation, input.StreamArn)];
    case 'GetRecords':
      return [streamCall(operation, input.ShardIterator)];
    default:
      return [call(operation, input.TableName)];
  }
}

/** A stream ARN's table and label; a DynamoDB Local iterator starts with its stream's ARN, then `|`. */
const STREAM_ARN = /:table\/([^/]+)\/stream\/([^|]+)/;

/** Batch calls are authorised as their single form. */
const SQS_ACTIONS: Readonly<Record<string, string>> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

/** The call IAM authorises for one SQS command. */
function sqsCallsOf(commandName: string, input: Input): AuthorisedCall[] {
  const operation = commandName.replace(/Command$/, '');
  const queueUrl = typeof input.QueueUrl === 'string' ? input.QueueUrl : undefined;
  return [{ service: 'sqs', action: SQS_ACTIONS[operation] ?? operation, ...(queueUrl ? { queueUrl } : {}) }];
}

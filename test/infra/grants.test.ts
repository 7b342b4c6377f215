import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  accountsImportFunctions,
  functions as catalogue,
  type FunctionSpec,
  queueActionsOf,
  registerImportFunctions,
  WEBHOOK_SECRETS_ACTIONS,
} from '../../infra/catalogue';
import { ENCRYPTION_CONTEXT_KEYS, PURPOSE_CONTEXT } from '../../shared/crypto/webhook-secrets-key';
import { isKeyedWrite } from '../../shared/iam/actions';
import { allQueues, streamFailuresQueue } from '../../shared/queues/queues';
import { allTables } from '../../shared/storage/tables';
import { defaultServiceStack } from '../support/service-stack';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The stack as deployed, without bundling the functions (the role policies are what is read here). */
function synthesize() {
  const { stack, template, logicalId } = defaultServiceStack();

  // Every resource a grant can name, by its CloudFormation reference.
  const resources = new Map<string, string>();
  const arnOf = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });
  for (const definition of allTables) {
    const table = logicalId(stack.tables.of(definition));
    resources.set(JSON.stringify(arnOf(table)), `table ${definition.id}`);
    resources.set(JSON.stringify(arnOf(table, 'StreamArn')), `stream ${definition.id}`);
    for (const index of definition.globalSecondaryIndexes ?? []) {
      resources.set(
        JSON.stringify({ 'Fn::Join': ['', [arnOf(table), `/index/${index.indexName}`]] }),
        `table ${definition.id}/index/${index.indexName}`,
      );
    }
  }
  for (const definition of allQueues) {
    const queue = stack.queues.of(definition);
    resources.set(JSON.stringify(arnOf(logicalId(queue.queue))), `queue ${definition.id}`);
    resources.set(JSON.stringify(arnOf(logicalId(queue.deadLetterQueue))), `queue ${definition.id}-dlq`);
  }
  resources.set(JSON.stringify(arnOf(logicalId(stack.webhookSecretsKey.key))), 'key webhook-secrets');

  /**
   * One line per (resource, action) a function's role allows on DynamoDB, SQS and KMS, with the
   * partition-key or encryption-context condition when there is one, e.g. `table clients UpdateItem
   * when RATE#*`, `key webhook-secrets Decrypt when purpose=…`.
   */
  const grantedTo = (id: string): string[] => {
    const fn = stack.functions.get(id) ?? stack.registerImport.functions.get(id) ?? stack.accountsImport.functions.get(id);
    const role = logicalId(fn?.executionRole as IConstruct);
    const statements = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: role }] } })).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
    );
    const lines = new Set<string>();
    for (const statement of statements) {
      const actions = asList(statement.Action).filter((action) => /^(dynamodb|sqs|kms):/.test(action));
      if (actions.length === 0) continue;
      expect(statement.Effect).toBe('Allow');
      const leadingKeys = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      const context = Object.entries(statement.Condition?.StringEquals ?? {}).map(
        ([name, value]) => `${name.replace(/^kms:EncryptionContext:/, '')}=${String(value)}`,
      );
      const contextKeys = statement.Condition?.['ForAllValues:StringEquals']?.['kms:EncryptionContextKeys'];
      const conditions = [
        ...(leadingKeys === undefined ? [] : asList(leadingKeys)),
        ...context,
        ...(contextKeys === undefined ? [] : [`keys=${asList(contextKeys).join(',')}`]),
      ];
      const condition = conditions.length === 0 ? '' : ` when ${conditions.join(' ')}`;
      expect(
        Object.keys(statement.Condition ?? {}).filter(
          (operator) => !['ForAllValues:StringLike', 'ForAllValues:StringEquals', 'StringEquals'].includes(operator),
        ),
      ).toEqual([]);
      for (const resource of asList(statement.Resource)) {
        const named = resource === '*' ? '*' : (resources.get(JSON.stringify(resource)) ?? `unknown ${JSON.stringify(resource)}`);
        for (const action of actions) lines.add(`${named} ${action.replace(/^(dynamodb|sqs|kms):/, '')}${condition}`);
      }
    }
    return [...lines].sort();
  };
  return { grantedTo };
}

/** The same lines, as the catalogue entry declares them. */
function declaredFor(spec: FunctionSpec): string[] {
  const lines = new Set<string>();
  for (const grant of spec.tables) {
    for (const action of grant.access.actions) {
      const confined = grant.writeKeyPrefixes?.length && isKeyedWrite(action);
      lines.add(
        `table ${grant.table.id} ${action}${confined ? ` when ${grant.writeKeyPrefixes?.map((prefix) => `${prefix}*`).join(' ')}` : ''}`,
      );
    }
    for (const index of grant.access.queryIndexes ?? []) lines.add(`table ${grant.table.id}/index/${index} Query`);
    for (const action of grant.access.streamReads ?? []) lines.add(`stream ${grant.table.id} ${action}`);
  }
  for (const [queue, { actions }] of queueActionsOf(spec)) for (const action of actions) lines.add(`queue ${queue} ${action}`);
  for (const source of spec.eventSources ?? []) {
    if (source.kind !== 'stream') continue;
    // What the stream mapping reads with the function's role, and where it puts a batch that keeps failing.
    for (const action of ['DescribeStream', 'GetRecords', 'GetShardIterator']) lines.add(`stream ${source.table.id} ${action}`);
    lines.add('* ListStreams');
    lines.add(`queue ${streamFailuresQueue.id} SendMessage`);
  }
  const purpose = [
    ...Object.entries(PURPOSE_CONTEXT).map(([name, value]) => `${name}=${value}`),
    `keys=${ENCRYPTION_CONTEXT_KEYS.join(',')}`,
  ];
  for (const action of spec.webhookSecrets ? WEBHOOK_SECRETS_ACTIONS[spec.webhookSecrets] : []) {
    lines.add(`key webhook-secrets ${action} when ${purpose.join(' ')}`);
  }
  return [...lines].sort();
}

describe("each function's role", () => {
  let synth: ReturnType<typeof synthesize>;
  beforeAll(() => {
    synth = synthesize();
  });

  it.each([...catalogue, ...registerImportFunctions, ...accountsImportFunctions].map((spec) => [spec.id, spec] as const))(
    '%s: allows on tables, indexes, queues and KMS keys exactly what its catalogue entry grants',
    (_id, spec) => {
      expect(synth.grantedTo(spec.id)).toEqual(declaredFor(spec));
    },
  );

  it('never grants what the code does not send: GetQueueUrl, GetQueueAttributes to a sender, Query on an index to a table reader', () => {
    for (const spec of [...catalogue, ...registerImportFunctions, ...accountsImportFunctions]) {
      const granted = synth.grantedTo(spec.id);
      expect(granted.filter((line) => line.endsWith(' GetQueueUrl'))).toEqual([]);
      if (!spec.eventSources?.some((source) => source.kind === 'queue')) {
        expect(granted.filter((line) => / (GetQueueAttributes|ReceiveMessage|DeleteMessage)$/.test(line))).toEqual([]);
      }
      const indexed = spec.tables.flatMap((grant) => grant.access.queryIndexes ?? []);
      if (indexed.length === 0) expect(granted.filter((line) => line.includes('/index/'))).toEqual([]);
    }
  });
});

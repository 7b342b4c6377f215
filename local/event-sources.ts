import { join } from 'node:path';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { FunctionSpec } from '../infra/catalogue';
import { streamFailuresQueue } from '../shared/queues/queues';
import { matchesStreamFilter } from '../shared/webhooks/profile-stream-record';
import type { LocalFunction } from './functions';
import { createSqsPoller } from './sqs-poller';
import { createStreamPoller } from './stream-poller';

export interface LocalEventSourceOptions {
  readonly specs: readonly FunctionSpec[];
  /** The local function of each spec, by catalogue id. */
  readonly targets: ReadonlyMap<string, LocalFunction>;
  readonly dynamo: DynamoDBClient;
  readonly dynamodbEndpoint: string;
  readonly sqs: SQSClient;
  /** Physical table names by table id. */
  readonly tables: Readonly<Record<string, string>>;
  readonly queues: Readonly<Record<string, { readonly queueUrl: string; readonly queueArn: string }>>;
  readonly streamCheckpointsDir: string;
  readonly region: string;
  readonly log: (line: string) => void;
  /** How long an idle queue poll waits; default 20 s as Lambda does (tests stop faster with less). */
  readonly queueWaitSeconds?: number;
}

export interface LocalEventSources {
  stop(): Promise<void>;
}

/**
 * The catalogue's event source mappings, played by pollers: a stream poller per stream source
 * (filter, batch size, retries, bisection, and the stream failures queue as its on-failure
 * destination, as the mapping has them) and an
 * SQS poller per queue source, whose parallel receivers stand for the mapping's maximum concurrency.
 */
export async function startLocalEventSources(options: LocalEventSourceOptions): Promise<LocalEventSources> {
  const streams = new DynamoDBStreamsClient({
    endpoint: options.dynamodbEndpoint,
    region: options.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const pollers: Array<{ stop(): Promise<void> }> = [];
  for (const spec of options.specs) {
    const target = options.targets.get(spec.id);
    if (!target) throw new Error(`No local function for ${spec.id}`);
    for (const source of spec.eventSources ?? []) {
      if (source.kind === 'stream') {
        const tableName = options.tables[source.table.id] as string;
        const described = await options.dynamo.send(new DescribeTableCommand({ TableName: tableName }));
        const streamArn = described.Table?.LatestStreamArn;
        if (!streamArn) throw new Error(`${tableName} has no stream for ${spec.id}`);
        const failures = options.queues[streamFailuresQueue.id];
        if (!failures) throw new Error(`No local queue ${streamFailuresQueue.id} for ${spec.id}'s stream failures`);
        const poller = createStreamPoller({
          streams,
          streamArn,
          invoke: (event) => target.invoke(event),
          checkpointFile: join(options.streamCheckpointsDir, `${spec.id}-${source.table.id}.json`),
          sendFailure: async (pointer) => {
            await options.sqs.send(new SendMessageCommand({ QueueUrl: failures.queueUrl, MessageBody: JSON.stringify(pointer) }));
          },
          functionName: target.functionName,
          batchSize: source.batchSize,
          maxRetryAttempts: source.maxRetryAttempts,
          bisectBatchOnFunctionError: source.bisectBatchOnError,
          filter: (record) => matchesStreamFilter(source.filter, record),
          region: options.region,
          log: (line) => options.log(`${spec.id}: ${line}`),
        });
        poller.start();
        pollers.push(poller);
      } else {
        const queue = options.queues[source.queue.id];
        if (!queue) throw new Error(`No local queue ${source.queue.id} for ${spec.id}`);
        const poller = createSqsPoller({
          sqs: options.sqs,
          queueUrl: queue.queueUrl,
          queueArn: queue.queueArn,
          invoke: (event) => target.invoke(event),
          batchSize: source.batchSize,
          concurrency: Math.min(source.maxConcurrency, target.concurrency),
          waitTimeSeconds: options.queueWaitSeconds ?? 20,
          region: options.region,
          log: (line) => options.log(`${spec.id}: ${line}`),
        });
        poller.start();
        pollers.push(poller);
      }
    }
  }
  return {
    async stop() {
      await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
      streams.destroy();
    },
  };
}

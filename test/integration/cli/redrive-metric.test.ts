import type { PutMetricDataCommandInput } from '@aws-sdk/client-cloudwatch';
import { GetQueueAttributesCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Target } from '../../../cli/context';
import { run } from '../../../cli/main';
import type { MetricSender } from '../../../cli/redrive-metric';
import { createSqsClient, type LocalSqs, startLocalSqs } from '../../../local/fauxqs';
import { ensureQueue } from '../../../local/queues';
import { OperatorMetric } from '../../../shared/observability/metrics';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

let local: LocalSqs;
let sqs: SQSClient;
let round = 0;
let queues: { deliveries: string; deliveriesDeadLetter: string; fanout: string; fanoutDeadLetter: string };

beforeAll(async () => {
  local = await startLocalSqs();
  sqs = createSqsClient(local.endpoint);
});

afterAll(async () => {
  sqs?.destroy();
  await local?.stop();
});

// Fresh queues per test: nothing one test parks is redriven by the next.
beforeEach(async () => {
  round += 1;
  const deliveries = await ensureQueue(sqs, {
    name: `deliveries-${round}`,
    visibilityTimeoutSeconds: 5,
    dlq: { name: `deliveries-${round}-dlq`, maxReceiveCount: 3 },
  });
  const fanout = await ensureQueue(sqs, {
    name: `fanout-${round}`,
    visibilityTimeoutSeconds: 5,
    dlq: { name: `fanout-${round}-dlq`, maxReceiveCount: 3 },
  });
  queues = {
    deliveries: deliveries.queueUrl,
    deliveriesDeadLetter: deliveries.dlq?.queueUrl as string,
    fanout: fanout.queueUrl,
    fanoutDeadLetter: fanout.dlq?.queueUrl as string,
  };
});

async function park(queueUrl: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += 10) {
    const ids = Array.from({ length: Math.min(10, count - first) }, (_, index) => first + index);
    await sqs.send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: ids.map((n) => ({ Id: String(n), MessageBody: `{"n":${n}}` })) }),
    );
  }
}

/** Messages in a queue, those received and not yet deleted included. */
async function depth(queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}

/** A CloudWatch client that records what it is asked to publish, or fails as CloudWatch would. */
function fakeCloudWatch(failure?: Error): MetricSender & { published: PutMetricDataCommandInput[] } {
  const published: PutMetricDataCommandInput[] = [];
  const send = async (command: { input: PutMetricDataCommandInput }) => {
    if (failure) throw failure;
    published.push(command.input);
    return {};
  };
  return { published, send: send as unknown as MetricSender['send'] };
}

function stackTarget(cloudWatch: MetricSender | undefined, client: SQSClient = sqs): Target {
  return {
    doc: undefined as never,
    tables: { clients: 'unused', companies: 'unused', watches: 'unused', webhooks: 'unused', deliveries: 'unused', workspace: 'unused' },
    queues: { sqs: client, ...queues },
    ...(cloudWatch ? { cloudWatch } : {}),
    sealer,
    loopbackReceivers: !cloudWatch,
    description: cloudWatch ? 'stack Test' : 'the test runtime',
    close: async () => {},
  };
}

async function bureau(target: Target, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    resolveTarget: async () => target,
    env: {},
    resolveHost: async () => [],
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const datum = (queue: string, value: number) => ({
  MetricName: 'DeadLetterRedrives',
  Dimensions: [
    { Name: 'service', Value: 'bureau' },
    { Name: 'Queue', Value: queue },
  ],
  Value: value,
  Unit: 'Count',
  Timestamp: expect.any(Date),
});

describe('bureau deliveries redrive, counted in CloudWatch', () => {
  it('publishes how many messages it moved out of each dead-letter queue of a deployed stack', async () => {
    await park(queues.deliveriesDeadLetter, 12);
    await park(queues.fanoutDeadLetter, 1);
    const cloudWatch = fakeCloudWatch();

    const result = await bureau(stackTarget(cloudWatch), 'deliveries', 'redrive');

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Moved 12 deliveries back to their queue.\nMoved 1 fan-out steps back to their queue.');
    expect(OperatorMetric.deadLetterRedrives).toBe('DeadLetterRedrives');
    expect(cloudWatch.published).toEqual([{ Namespace: 'Bureau', MetricData: [datum('deliveries', 12), datum('fanout', 1)] }]);
  });

  it('publishes a zero when a dead-letter queue was empty, so the chart shows the redrive ran', async () => {
    const cloudWatch = fakeCloudWatch();

    const result = await bureau(stackTarget(cloudWatch), 'deliveries', 'redrive');

    expect(result.stdout).toBe('No deliveries in the dead-letter queue.\nNo fan-out steps in the dead-letter queue.');
    expect(cloudWatch.published[0]?.MetricData).toEqual([datum('deliveries', 0), datum('fanout', 0)]);
  });

  it('publishes what moved before a redrive stopped part way, and still fails the command', async () => {
    await park(queues.deliveriesDeadLetter, 25);
    await park(queues.fanoutDeadLetter, 2);
    // The real emulator behind a connection that drops on the second batch sent back.
    const flaky = createSqsClient(local.endpoint);
    let batches = 0;
    flaky.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'SendMessageBatchCommand' && ++batches === 2) throw new Error('socket hang up');
        return next(args);
      },
      { step: 'initialize' },
    );
    const cloudWatch = fakeCloudWatch();

    const result = await bureau(stackTarget(cloudWatch, flaky), 'deliveries', 'redrive');
    flaky.destroy();

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/error: socket hang up/);
    const movedBack = await depth(queues.deliveries);
    expect(movedBack).toBeGreaterThan(0);
    expect(movedBack + (await depth(queues.deliveriesDeadLetter))).toBe(25);
    expect(cloudWatch.published).toEqual([{ Namespace: 'Bureau', MetricData: [datum('deliveries', movedBack)] }]);
    expect(await depth(queues.fanoutDeadLetter)).toBe(2);
  });

  it('warns and succeeds when CloudWatch refuses the metric: the messages have moved all the same', async () => {
    await park(queues.deliveriesDeadLetter, 2);
    const denied = Object.assign(new Error('User is not authorized to perform: cloudwatch:PutMetricData'), { name: 'AccessDenied' });

    const result = await bureau(stackTarget(fakeCloudWatch(denied)), 'deliveries', 'redrive');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Moved 2 deliveries back to their queue\./);
    expect(result.stderr).toMatch(
      /warning: the redrive metric could not be published to CloudWatch \(User is not authorized to perform: cloudwatch:PutMetricData\); it counted Bureau\/DeadLetterRedrives service=bureau Queue=deliveries: 2/,
    );
    expect(await depth(queues.deliveries)).toBe(2);
  });

  it('only prints the metric against the local runtime', async () => {
    await park(queues.deliveriesDeadLetter, 3);

    const result = await bureau(stackTarget(undefined), 'deliveries', 'redrive');

    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('metric'))).toEqual([
      'metric (local runtime, not published): Bureau/DeadLetterRedrives service=bureau Queue=deliveries: 3',
      'metric (local runtime, not published): Bureau/DeadLetterRedrives service=bureau Queue=fanout: 0',
    ]);
  });
});

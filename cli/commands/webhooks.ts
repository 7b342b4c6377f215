import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type Command, InvalidArgumentError } from 'commander';
import { isWellFormedClientId } from '../../shared/auth/client-registry';
import { parseInstant } from '../../shared/http/instant';
import { type DeliveryMessage, deliveriesQueue, fanoutQueue } from '../../shared/queues/queues';
import { JsonQueue } from '../../shared/queues/sqs';
import { Deliveries } from '../../shared/webhooks/deliveries';
import { DynamoDeliveryLog } from '../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore, subscriptionOf } from '../../shared/webhooks/dynamo-subscription-store';
import { openSecretsInForce } from '../../shared/webhooks/signing-secrets';
import type { Subscription } from '../../shared/webhooks/subscription';
import { type RevealedSubscription, Subscriptions } from '../../shared/webhooks/subscriptions';
import { systemResolver } from '../../shared/webhooks/system-resolver';
import { attemptRepresentationOf, representationOf } from '../../shared/webhooks/webhooks-endpoint';
import type { CliContext, Target } from '../context';
import { parseDuration } from '../duration';
import { formatTable } from '../format';
import { redrive } from '../operations/redrive';
import { reportDeadLetterRedrives } from '../redrive-metric';
import { TargetError } from '../target';
import { startWebhookListener } from '../webhook-listener';

/** --since: an RFC 3339 instant, or a duration back from now. */
function sinceOption(text: string): Date {
  const instant = parseInstant(text);
  if (instant) return instant;
  try {
    return new Date(Date.now() - parseDuration(text) * 1000);
  } catch {
    throw new InvalidArgumentError('an instant such as 2026-11-24T09:00:00Z, or a time ago such as 90m, 24h or 7d');
  }
}

function clientOption(text: string): string {
  if (!isWellFormedClientId(text)) throw new InvalidArgumentError('not a client id');
  return text;
}

function subscriptionsIn(context: CliContext, target: Target): Subscriptions {
  return new Subscriptions({
    store: new DynamoSubscriptionStore(target.doc, target.tables.webhooks),
    resolve: context.resolveHost ?? systemResolver,
    clock: () => new Date(),
    allowLoopback: target.loopbackReceivers,
    sealer: target.sealer,
  });
}

async function subscriptionsOf(context: CliContext): Promise<Subscriptions> {
  return subscriptionsIn(context, await context.target());
}

/**
 * Tests and retries go through the deliveries queue, which a local runtime has only while it runs;
 * reading the log needs the tables alone.
 */
async function deliveriesOf(context: CliContext): Promise<Deliveries> {
  const target = await context.target();
  const { queues } = target;
  return new Deliveries({
    subscriptions: subscriptionsIn(context, target),
    log: new DynamoDeliveryLog(target.doc, target.tables.deliveries),
    queue: queues
      ? new JsonQueue<DeliveryMessage>(queues.sqs, queues.deliveries)
      : {
          send: async () => {
            throw new TargetError(`${target.description} has no deliveries queue to send to: start the local runtime (npm start) first`);
          },
        },
    clock: () => new Date(),
    manualSends: 'unlimited',
  });
}

function portOption(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new InvalidArgumentError('a port number from 0 to 65535');
  return Number(text);
}

/**
 * --filters: the subscription's filters as the API takes them, checked to be JSON and kept as text
 * (commander turns an option's null into ''); the use case checks what they hold.
 */
function filtersOption(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    throw new InvalidArgumentError('JSON such as {"blocks":["riskOfFailure"],"companies":["GB:01234567"]}, or null for none');
  }
}

function statusOption(text: string): number {
  if (!/^[1-5]\d\d$/.test(text)) throw new InvalidArgumentError('an HTTP status from 100 to 599');
  return Number(text);
}

function print(
  context: CliContext,
  { subscription, signingSecret }: RevealedSubscription,
  json: boolean | undefined,
  extra: Record<string, string> = {},
): void {
  const shown = { ...representationOf(subscription, signingSecret), ...extra };
  if (json) {
    context.io.out(JSON.stringify(shown, null, 2));
    return;
  }
  for (const [field, value] of Object.entries(shown)) {
    // Filters are an object: shown as the JSON that --filters takes.
    context.io.out(`${`${field}:`.padEnd(16)}${typeof value === 'object' && value !== null ? JSON.stringify(value) : value}`);
  }
}

/** `bureau webhooks …`: an operator managing a client's webhook subscriptions, as the client does through the API. */
export function registerWebhookCommands(program: Command, context: CliContext): void {
  const webhooks = program
    .command('webhooks')
    .description("manage a client's webhook subscriptions")
    .addHelpText(
      'after',
      `
Examples:
  $ bureau webhooks create --client cli_0123456789abcdef --name Production --url https://hooks.example.com/bureau
  $ bureau webhooks list --client cli_0123456789abcdef
  $ bureau webhooks update --client cli_0123456789abcdef wh_3kYl0g2mZr8xQ1aB --status DISABLED
  $ bureau webhooks update --client cli_0123456789abcdef wh_3kYl0g2mZr8xQ1aB --filters '{"blocks":["riskOfFailure"]}'
  $ bureau webhooks rotate-secret --client cli_0123456789abcdef wh_3kYl0g2mZr8xQ1aB`,
    );
  const withClient = (command: Command) =>
    command.requiredOption('--client <clientId>', 'the client the subscription belongs to', clientOption);

  withClient(webhooks.command('create').description('register an endpoint; prints its signing secret'))
    .requiredOption('--name <name>', 'a label, e.g. Production')
    .requiredOption('--url <url>', 'https URL that will receive the webhooks')
    .option('--filters <json>', 'which events it receives, as the API takes them (null: every event)', filtersOption)
    .option('--json', 'print JSON')
    .action(async (options: { client: string; name: string; url: string; filters?: string; json?: boolean }) => {
      const { name, url, filters } = options;
      const request = { name, url, ...(filters === undefined ? {} : { filters: JSON.parse(filters) }) };
      print(context, await (await subscriptionsOf(context)).register(options.client, request), options.json);
    });

  withClient(webhooks.command('list').description("list a client's subscriptions"))
    .option('--json', 'print JSON')
    .action(async (options: { client: string; json?: boolean }) => {
      const subscriptions = await subscriptionsOf(context);
      const all: Subscription[] = [];
      let cursor: string | undefined;
      do {
        const page = await subscriptions.list(options.client, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
        all.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      if (options.json)
        context.io.out(
          JSON.stringify(
            all.map((subscription) => representationOf(subscription)),
            null,
            2,
          ),
        );
      else if (all.length === 0) context.io.out(`Client ${options.client} has no webhook subscriptions.`);
      else
        context.io.out(
          formatTable(
            ['ID', 'NAME', 'STATUS', 'URL'],
            all.map((s) => [s.id, s.name, s.status, s.url]),
          ),
        );
    });

  withClient(webhooks.command('show').description('show one subscription, its signing secret included'))
    .argument('<id>', 'the subscription')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { client: string; json?: boolean }) => {
      print(context, await (await subscriptionsOf(context)).reveal(options.client, id), options.json);
    });

  withClient(webhooks.command('update').description("change a subscription's name, URL, status or filters"))
    .argument('<id>', 'the subscription')
    .option('--name <name>', 'a new label')
    .option('--url <url>', 'a new https URL')
    .option('--status <status>', 'ACTIVE or DISABLED')
    .option('--filters <json>', 'which events it receives, as the API takes them (null: every event)', filtersOption)
    .option('--json', 'print JSON')
    .action(
      async (id: string, options: { client: string; name?: string; url?: string; status?: string; filters?: string; json?: boolean }) => {
        const { client, json, filters, ...changes } = options;
        const request = { ...changes, ...(filters === undefined ? {} : { filters: JSON.parse(filters) }) };
        print(context, await (await subscriptionsOf(context)).change(client, id, request), json);
      },
    );

  withClient(webhooks.command('rotate-secret').description('issue a new signing secret; the old one signs beside it for 24 hours'))
    .argument('<id>', 'the subscription')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { client: string; json?: boolean }) => {
      const { previousExpiresAt, ...rotated } = await (await subscriptionsOf(context)).rotateSecret(options.client, id);
      print(context, rotated, options.json, { previousSigningSecretExpiresAt: previousExpiresAt });
    });

  withClient(webhooks.command('delete').description('delete a subscription'))
    .argument('<id>', 'the subscription')
    .action(async (id: string, options: { client: string }) => {
      await (await subscriptionsOf(context)).remove(options.client, id);
      context.io.out(`Deleted webhook subscription ${id} of client ${options.client}.`);
    });

  withClient(webhooks.command('test').description('send a test event (type webhook.test) through the deliveries queue'))
    .argument('<id>', 'the subscription')
    .action(async (id: string, options: { client: string }) => {
      const { deliveryId } = await (await deliveriesOf(context)).sendTest(options.client, id);
      context.io.out(`Queued test delivery ${deliveryId}; see it with: bureau webhooks deliveries --client ${options.client} ${id}`);
    });

  withClient(webhooks.command('deliveries').description("list a subscription's delivery attempts, newest first (30 days)"))
    .argument('<id>', 'the subscription')
    .option(
      '--limit <n>',
      'attempts to show',
      (text) => {
        if (!/^\d{1,3}$/.test(text) || Number(text) < 1 || Number(text) > 100) throw new InvalidArgumentError('1 to 100');
        return Number(text);
      },
      20,
    )
    .option('--json', 'print JSON')
    .action(async (id: string, options: { client: string; limit: number; json?: boolean }) => {
      const page = await (await deliveriesOf(context)).attempts(options.client, id, { limit: options.limit });
      const items = page.items.map(attemptRepresentationOf);
      if (options.json) context.io.out(JSON.stringify(items, null, 2));
      else if (items.length === 0) context.io.out(`No delivery attempts for ${id} in the last 30 days.`);
      else
        context.io.out(
          formatTable(
            ['TIME', 'EVENT', 'DELIVERY', 'ATTEMPT', 'OUTCOME', 'STATUS/ERROR', 'MS', 'NEXT ATTEMPT'],
            items.map((item) => [
              item.attemptedAt,
              item.eventType,
              item.deliveryId,
              String(item.attempt),
              item.outcome,
              item.httpStatus !== null ? String(item.httpStatus) : (item.error ?? ''),
              String(item.durationMs),
              item.nextAttemptAt ?? '',
            ]),
          ),
        );
    });

  withClient(webhooks.command('retry').description('send a logged delivery again now'))
    .argument('<id>', 'the subscription')
    .argument('<deliveryId>', 'the delivery (msg_…)')
    .action(async (id: string, deliveryId: string, options: { client: string }) => {
      await (await deliveriesOf(context)).retry(options.client, id, deliveryId);
      context.io.out(`Queued delivery ${deliveryId} again.`);
    });

  withClient(webhooks.command('recover').description('send again every delivery that ended without success since a time (14 days at most)'))
    .argument('<id>', 'the subscription')
    .requiredOption('--since <when>', 'an instant (2026-11-24T09:00:00Z) or a time ago (90m, 24h, 7d)', sinceOption)
    .action(async (id: string, options: { client: string; since: Date }) => {
      const deliveries = await deliveriesOf(context);
      let queued = 0;
      let cursor: string | undefined;
      do {
        const page = await deliveries.recover(options.client, id, { since: options.since, ...(cursor ? { cursor } : {}) });
        queued += page.queued;
        cursor = page.nextCursor;
        if (cursor) context.io.err(`${queued} deliveries queued…`);
      } while (cursor);
      context.io.out(
        queued === 0
          ? `No delivery to ${id} ended without success since ${options.since.toISOString()}.`
          : `Queued ${queued} deliveries to ${id} again, each with its original webhook-id; follow them with: bureau webhooks deliveries --client ${options.client} ${id}`,
      );
    });

  webhooks
    .command('reindex')
    .description("rebuild every client's set of ACTIVE subscriptions, which the fan-out reads (once after upgrading a stack)")
    .action(async () => {
      const target = await context.target();
      const { seen, active } = await new DynamoSubscriptionStore(target.doc, target.tables.webhooks).rebuildActiveSets(({ seen: sofar }) =>
        context.io.err(`${sofar} subscriptions read…`),
      );
      context.io.out(`Indexed ${active} ACTIVE of ${seen} subscriptions in ${target.description}.`);
    });

  webhooks
    .command('listen')
    .description('run a local receiver that prints each delivery and whether its signature verified (local runtime only)')
    .option('--port <port>', 'port on 127.0.0.1', portOption, 4000)
    .option('--status <code>', 'HTTP status to answer with, e.g. 500 to watch retries', statusOption, 200)
    .addHelpText(
      'after',
      `
Then register it for a client (the local runtime accepts loopback receivers over plain http):
  $ bureau webhooks create --client cli_0123456789abcdef --name Local --url http://127.0.0.1:4000/webhooks`,
    )
    .action(async (options: { port: number; status: number }) => {
      const target = await context.target();
      if (!target.loopbackReceivers)
        throw new TargetError('listen receives from the local runtime only: a deployed stack never delivers to loopback');
      const listener = await startWebhookListener({
        port: options.port,
        status: options.status,
        print: (line) => context.io.out(line),
        // The local table is small: every subscription pointing at this listener, whichever client's.
        secrets: async () => {
          const prefix = `http://127.0.0.1:${options.port}`;
          const result = await target.doc.send(
            new ScanCommand({
              TableName: target.tables.webhooks,
              FilterExpression: 'begins_with(#url, :prefix)',
              ExpressionAttributeNames: { '#url': 'url' },
              ExpressionAttributeValues: { ':prefix': prefix },
            }),
          );
          const subscriptions = (result.Items ?? []).map((item) => subscriptionOf(item as Parameters<typeof subscriptionOf>[0]));
          const opened = await Promise.all(
            subscriptions.map(async (subscription) =>
              (await openSecretsInForce(target.sealer, subscription, new Date())).map(({ secret }) => ({
                subscriptionId: subscription.id,
                secret,
              })),
            ),
          );
          return opened.flat();
        },
      });
      context.io.out(`Listening on ${listener.url}/webhooks (answering ${options.status}); Ctrl-C stops.`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
      await listener.stop();
    });
}

/** `bureau deliveries …`: what an operator does with deliveries that ran out of attempts. */
export function registerDeliveryCommands(program: Command, context: CliContext): void {
  const deliveries = program.command('deliveries').description('deliveries that exhausted their retries');
  deliveries
    .command('redrive')
    .description('send every parked delivery (and fan-out step) back to its queue, to be tried again now')
    .action(async () => {
      const target = await context.target();
      const { queues } = target;
      if (!queues) throw new TargetError(`${target.description} has no deliveries queue: start the local runtime (npm start) first`);
      const parked = [
        { what: 'deliveries', queue: deliveriesQueue.id, from: queues.deliveriesDeadLetter, to: queues.deliveries },
        ...(queues.fanout && queues.fanoutDeadLetter
          ? [{ what: 'fan-out steps', queue: fanoutQueue.id, from: queues.fanoutDeadLetter, to: queues.fanout }]
          : []),
      ];
      // Progress is counted batch by batch, so a redrive that stops part way still reports what it moved.
      const redriven: { queue: string; moved: number }[] = [];
      try {
        for (const { what, queue, from, to } of parked) {
          const counted = { queue, moved: 0 };
          redriven.push(counted);
          const { moved } = await redrive(queues.sqs, from, to, {
            onProgress: ({ moved: sofar }) => {
              counted.moved = sofar;
              context.io.err(`${sofar} ${what} moved…`);
            },
          });
          counted.moved = moved;
          context.io.out(moved === 0 ? `No ${what} in the dead-letter queue.` : `Moved ${moved} ${what} back to their queue.`);
        }
      } finally {
        await reportDeadLetterRedrives(redriven, context.io, target.cloudWatch);
      }
    });
}

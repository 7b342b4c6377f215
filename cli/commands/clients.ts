import { type Command, InvalidArgumentError } from 'commander';
import type { ClientRecord } from '../../shared/auth/client-registry';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';
import type { CliContext } from '../context';
import { formatDuration, parseDuration } from '../duration';
import { formatTable } from '../format';
import { removeClient } from '../operations/client-removal';
import { removePartition } from '../operations/partition-removal';
import { UsageError } from '../usage-error';

function graceOption(text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function rateLimitOption(text: string): number {
  if (!/^\d{1,7}$/.test(text) || Number(text) < 1) throw new InvalidArgumentError('use a whole number of requests per minute, at least 1');
  return Number(text);
}

async function registryOf(context: CliContext): Promise<DynamoClientRegistry> {
  const target = await context.target();
  return new DynamoClientRegistry(target.doc, target.tables.clients);
}

const rateLimitText = (client: ClientRecord) => (client.rateLimitPerMinute === undefined ? 'default' : `${client.rateLimitPerMinute}/min`);

function secretWarning(context: CliContext, clientId: string): void {
  context.io.err('Store this secret now: it cannot be shown again.');
  context.io.err(`If it is lost, issue a new one with: bureau clients rotate-secret ${clientId} --grace 0`);
}

/** `bureau clients …`: issue, list, rotate, disable and enable API clients. */
export function registerClientCommands(program: Command, context: CliContext): void {
  const clients = program
    .command('clients')
    .description('manage API clients and their credentials')
    .addHelpText(
      'after',
      `
Examples:
  $ bureau clients create --name "Acme Ltd" --rate-limit 600
  $ bureau clients list
  $ bureau clients rotate-secret cli_0123456789abcdef --grace 24h   # planned: the client switches within a day
  $ bureau clients rotate-secret cli_0123456789abcdef --grace 0     # leaked: the old secret stops now
  $ bureau clients disable cli_0123456789abcdef
  $ bureau clients remove cli_0123456789abcdef --yes      # a client that has left: its subscriptions, delivery logs, watches and events go too
  $ bureau --stack Bureau --region eu-west-2 clients list --json`,
    );

  clients
    .command('create')
    .description('create a client and print its id and secret (the secret is shown only once)')
    .requiredOption('--name <name>', 'who the client is, e.g. the customer company')
    .option('--rate-limit <perMinute>', 'requests per minute for this client (default: the service-wide limit)', rateLimitOption)
    .option('--client-id <clientId>', 'use this id instead of a generated one')
    .option('--json', 'print JSON')
    .action(async (options: { name: string; rateLimit?: number; clientId?: string; json?: boolean }) => {
      const registry = await registryOf(context);
      const { client, secret } = await registry.create({
        name: options.name,
        clientId: options.clientId,
        rateLimitPerMinute: options.rateLimit,
      });
      if (options.json) {
        context.io.out(JSON.stringify({ ...client, clientSecret: secret }, null, 2));
      } else {
        context.io.out(`Created client "${client.name}" (rate limit: ${rateLimitText(client)})`);
        context.io.out(`client_id:     ${client.clientId}`);
        context.io.out(`client_secret: ${secret}`);
      }
      secretWarning(context, client.clientId);
    });

  clients
    .command('list')
    .description('list every client: id, name, status, creation time and rate limit')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const registry = await registryOf(context);
      const all: ClientRecord[] = [];
      let cursor: string | undefined;
      do {
        const page = await registry.list({ cursor, limit: 100 });
        all.push(...page.clients);
        cursor = page.cursor;
      } while (cursor);
      if (options.json) {
        // Client records as the registry returns them never hold secret hashes.
        context.io.out(JSON.stringify(all, null, 2));
      } else if (all.length === 0) {
        context.io.out('No clients yet. Create one with: bureau clients create --name <name>');
      } else {
        context.io.out(
          formatTable(
            ['ID', 'NAME', 'STATUS', 'CREATED', 'RATE LIMIT'],
            all.map((client) => [client.clientId, client.name, client.status, client.createdAt, rateLimitText(client)]),
          ),
        );
      }
    });

  clients
    .command('rotate-secret')
    .description("issue a new secret; the old one keeps working for the grace period, and the client's tokens are revoked")
    .argument('<clientId>', 'the client')
    // No default: after a leak the old secret must stop at once, and a default grace would keep it working.
    .requiredOption(
      '--grace <duration>',
      'how long the old secret keeps working: 0 if it may have leaked, otherwise time for the client to switch (30m, 24h, 7d)',
      graceOption,
    )
    .option('--json', 'print JSON')
    .action(async (clientId: string, options: { grace: number; json?: boolean }) => {
      const registry = await registryOf(context);
      const { secret, version } = await registry.rotateSecret(clientId, { graceSeconds: options.grace });
      if (options.json) {
        context.io.out(JSON.stringify({ clientId, clientSecret: secret, version, graceSeconds: options.grace }, null, 2));
      } else {
        context.io.out(`New secret (version ${version}) for ${clientId}`);
        context.io.out(`client_secret: ${secret}`);
        context.io.out(
          options.grace === 0
            ? 'The previous secret no longer works.'
            : `The previous secret keeps working for ${formatDuration(options.grace)} (until ${new Date(Date.now() + options.grace * 1000).toISOString()}).`,
        );
      }
      secretWarning(context, clientId);
    });

  for (const [name, status, effect] of [
    ['disable', 'disabled', 'It can no longer get tokens, and its tokens stop working within a minute.'],
    ['enable', 'active', 'It can get tokens again; tokens issued before it was disabled stay refused.'],
  ] as const) {
    clients
      .command(name)
      .description(`${name} a client`)
      .argument('<clientId>', 'the client')
      .option('--json', 'print JSON')
      .action(async (clientId: string, options: { json?: boolean }) => {
        const registry = await registryOf(context);
        const client = name === 'disable' ? await registry.disable(clientId) : await registry.enable(clientId);
        if (options.json) {
          context.io.out(JSON.stringify(client, null, 2));
        } else {
          context.io.out(`Client ${client.clientId} is ${status}. ${effect}`);
        }
      });
  }

  clients
    .command('remove')
    .description(
      'remove a client that has left: disable it, delete its webhook subscriptions with their delivery logs, its watches and its events, then the client',
    )
    .argument('<clientId>', 'the client')
    .option('--yes', 'confirm: nothing of the client can be restored afterwards')
    .option('--json', 'print JSON')
    .action(async (clientId: string, options: { yes?: boolean; json?: boolean }) => {
      if (!options.yes) {
        throw new UsageError(
          `this deletes ${clientId} with its subscriptions, delivery logs, watches and events for good; add --yes to go ahead`,
        );
      }
      const target = await context.target();
      const registry = new DynamoClientRegistry(target.doc, target.tables.clients);
      if (!(await registry.get(clientId))) context.io.err(`There is no client ${clientId}; finishing any removal left half done.`);
      const eventsTable = target.tables.events;
      if (!eventsTable) context.io.err(`${target.description} names no events table: there are no events to delete.`);
      const removed = await removeClient(
        {
          registry,
          subscriptions: new DynamoSubscriptionStore(target.doc, target.tables.webhooks),
          watches: new DynamoWatchStore(target.doc, target.tables.watches),
          removeDeliveryLog: (subscriptionId) => removePartition(target.doc, target.tables.deliveries, `WEBHOOK#${subscriptionId}`),
          removeEvents: async (id) => (eventsTable ? removePartition(target.doc, eventsTable, `CLIENT#${id}`) : 0),
        },
        clientId,
      );
      if (options.json) context.io.out(JSON.stringify({ clientId, ...removed }, null, 2));
      else
        context.io.out(
          `Removed client ${clientId}: ${counted(removed.subscriptionsRemoved, 'webhook subscription')}, ` +
            `${counted(removed.watchesRemoved, 'watch', 'watches')}, ${counted(removed.eventsRemoved, 'event')} and ` +
            `${counted(removed.deliveryLogItemsRemoved, 'delivery log item')} deleted.`,
        );
    });
}

const counted = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

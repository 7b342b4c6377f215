import { type Command, InvalidArgumentError } from 'commander';
import { isWellFormedClientId } from '../../../shared/auth/client-registry';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import type { Subscription } from '../../../shared/webhooks/subscription';
import { Subscriptions } from '../../../shared/webhooks/subscriptions';
import { systemResolver } from '../../../shared/webhooks/system-resolver';
import { representationOf } from '../../../shared/webhooks/webhooks-endpoint';
import type { CliContext } from '../context';
import { formatTable } from '../format';

function clientOption(text: string): string {
  if (!isWellFormedClientId(text)) throw new InvalidArgumentError('not a client id');
  return text;
}

async function subscriptionsOf(context: CliContext): Promise<Subscriptions> {
  const target = await context.target();
  return new Subscriptions({
    store: new DynamoSubscriptionStore(target.doc, target.tables.webhooks),
    resolve: context.resolveHost ?? systemResolver,
    clock: () => new Date(),
  });
}

function print(context: CliContext, subscription: Subscription, json: boolean | undefined, extra: Record<string, string> = {}): void {
  const shown = { ...representationOf(subscription), ...extra };
  if (json) {
    context.io.out(JSON.stringify(shown, null, 2));
    return;
  }
  for (const [field, value] of Object.entries(shown)) context.io.out(`${`${field}:`.padEnd(16)}${value}`);
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
  $ bureau webhooks rotate-secret --client cli_0123456789abcdef wh_3kYl0g2mZr8xQ1aB`,
    );
  const withClient = (command: Command) =>
    command.requiredOption('--client <clientId>', 'the client the subscription belongs to', clientOption);

  withClient(webhooks.command('create').description('register an endpoint; prints its signing secret'))
    .requiredOption('--name <name>', 'a label, e.g. Production')
    .requiredOption('--url <url>', 'https URL that will receive the webhooks')
    .option('--json', 'print JSON')
    .action(async (options: { client: string; name: string; url: string; json?: boolean }) => {
      print(
        context,
        await (await subscriptionsOf(context)).register(options.client, { name: options.name, url: options.url }),
        options.json,
      );
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
      print(context, await (await subscriptionsOf(context)).get(options.client, id), options.json);
    });

  withClient(webhooks.command('update').description("change a subscription's name, URL or status"))
    .argument('<id>', 'the subscription')
    .option('--name <name>', 'a new label')
    .option('--url <url>', 'a new https URL')
    .option('--status <status>', 'ACTIVE or DISABLED')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { client: string; name?: string; url?: string; status?: string; json?: boolean }) => {
      const { client, json, ...changes } = options;
      print(context, await (await subscriptionsOf(context)).change(client, id, changes), json);
    });

  withClient(webhooks.command('rotate-secret').description('issue a new signing secret; the old one signs beside it for 24 hours'))
    .argument('<id>', 'the subscription')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { client: string; json?: boolean }) => {
      const { subscription, previousExpiresAt } = await (await subscriptionsOf(context)).rotateSecret(options.client, id);
      print(context, subscription, options.json, { previousSigningSecretExpiresAt: previousExpiresAt });
    });

  withClient(webhooks.command('delete').description('delete a subscription'))
    .argument('<id>', 'the subscription')
    .action(async (id: string, options: { client: string }) => {
      await (await subscriptionsOf(context)).remove(options.client, id);
      context.io.out(`Deleted webhook subscription ${id} of client ${options.client}.`);
    });
}

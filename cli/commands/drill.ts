import type { Command } from 'commander';
import { BureauApiError, BureauConnectionError, createClient, requestToken } from '../../packages/client/src/index';
import { drillAlarms, pageRegions, sdkAlarmDrillClients } from '../alarm-drill';
import type { CliContext } from '../context';
import { parseDuration } from '../duration';
import { UsageError } from '../usage-error';

interface DrillOptions {
  readonly url?: string;
  readonly alarms?: boolean;
  readonly company: string;
  readonly receiver?: string;
  readonly timeout: string;
}

/** One step's outcome: what it proved, or why it failed. */
class StepFailed extends Error {}

const COMPANY_KEY = /^(GB|IE):([A-Za-z0-9 ]{1,32})$/i;

/**
 * `bureau drill`: proves a deployment serves its clients, end to end and as a client sees it, with
 * the SDK: a token, the OpenAPI document, a profile, a search that finds it, the watch it records
 * and, given a receiver, a test webhook delivered there, read back from the delivery log. The
 * client's credentials come from the environment, never the command line, where any user of the
 * machine can read them. Each step prints its time; the first failure stops the drill.
 */
export function registerDrillCommand(program: Command, context: CliContext): void {
  program
    .command('drill')
    .description(
      'Check a deployment end to end as a client: token, document, profile, search, watches and a test webhook; or, with --alarms, that its pages reach people',
    )
    .option('--url <url>', "the API's base URL, e.g. the stack's ApiUrl output or http://127.0.0.1:3000")
    .option(
      '--alarms',
      'instead: set one page in each region to ALARM, prove CloudWatch notified its topics, and set it back to OK (needs --stack)',
    )
    .option('--company <key>', 'a company the register holds, as JURISDICTION:NUMBER', 'GB:15380840')
    .option('--receiver <url>', 'an https endpoint of yours to receive a test webhook (a subscription is made for it, then deleted)')
    .option('--timeout <duration>', 'how long to wait for the test webhook to be delivered', '60s')
    .addHelpText(
      'after',
      `
Credentials: BUREAU_CLIENT_ID and BUREAU_CLIENT_SECRET (a client made with \`bureau clients create\`).

With --alarms the drill pages the people subscribed to the stage's paging topics, twice (ALARM, then
OK): tell them first. It calls, with the AWS credentials of the shell, cloudwatch:DescribeAlarms,
SetAlarmState and DescribeAlarmHistory and sns:ListSubscriptionsByTopic, in the stack's region
(--region or AWS_REGION) and in us-east-1.

Examples:
  $ bureau --stack Bureau --region eu-west-2 drill --alarms
  $ BUREAU_CLIENT_ID=cli_… BUREAU_CLIENT_SECRET=bsk_… bureau drill --url https://api.example.com --receiver https://hooks.example.com/bureau
  $ bureau drill --url http://127.0.0.1:3000 --receiver http://127.0.0.1:4000/webhooks   # with bureau webhooks listen`,
    )
    .action(async (options: DrillOptions, command: Command) => {
      if (options.alarms) {
        await alarmDrill(context, command.optsWithGlobals() as { stack?: string; region?: string }, options.timeout);
        return;
      }
      if (!options.url) throw new UsageError('give --url, the base URL of the API to drill (or --alarms to drill the alarms)');
      const clientId = context.env.BUREAU_CLIENT_ID;
      const clientSecret = context.env.BUREAU_CLIENT_SECRET;
      if (!clientId || !clientSecret)
        throw new UsageError('set BUREAU_CLIENT_ID and BUREAU_CLIENT_SECRET to the credentials of a client to drill with');
      const company = COMPANY_KEY.exec(options.company.trim());
      if (!company) throw new UsageError(`--company must be JURISDICTION:NUMBER, e.g. GB:15380840, not "${options.company}"`);
      const jurisdiction = (company[1] as string).toUpperCase() as 'GB' | 'IE';
      const timeoutMs = parseDuration(options.timeout) * 1000;
      const baseUrl = options.url.replace(/\/+$/, '');
      await drill(context, {
        baseUrl,
        clientId,
        clientSecret,
        jurisdiction,
        number: company[2] as string,
        receiver: options.receiver,
        timeoutMs,
      });
    });
}

/** `drill --alarms`: the stage's pages, in its region and in us-east-1. */
async function alarmDrill(context: CliContext, globals: { stack?: string; region?: string }, timeout: string): Promise<void> {
  const { io, env } = context;
  if (!globals.stack)
    throw new UsageError("drill --alarms needs --stack, the stage's stack name (e.g. bureau --stack Bureau drill --alarms)");
  const region = globals.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new UsageError("drill --alarms needs the stack's region: give --region or set AWS_REGION");
  const timeoutMs = parseDuration(timeout) * 1000;
  const clients = sdkAlarmDrillClients(env);
  const started = performance.now();
  io.out(`Drilling the pages of ${globals.stack} in ${region} and us-east-1: their subscribers are notified now, then told it is over`);
  try {
    const failures = await drillAlarms(io, { regions: pageRegions(globals.stack, region), clientsOf: clients.of, timeoutMs });
    if (failures.length > 0) throw new UsageError(`the alarm drill failed: ${failures.join('; ')}`);
    io.out(`Alarm drill passed in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  } finally {
    clients.close();
  }
}

interface DrillPlan {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly jurisdiction: 'GB' | 'IE';
  readonly number: string;
  readonly receiver: string | undefined;
  readonly timeoutMs: number;
}

async function drill(context: CliContext, plan: DrillPlan): Promise<void> {
  const { io } = context;
  const started = performance.now();
  const step = async <T>(name: string, work: () => Promise<[T, string]>): Promise<T> => {
    const at = performance.now();
    try {
      const [value, proof] = await work();
      io.out(`✓ ${name.padEnd(10)} ${`${Math.round(performance.now() - at)} ms`.padStart(8)}  ${proof}`);
      return value;
    } catch (error) {
      io.out(`✗ ${name.padEnd(10)} ${`${Math.round(performance.now() - at)} ms`.padStart(8)}  ${reasonOf(error)}`);
      throw new StepFailed(`the drill failed at "${name}": ${reasonOf(error)}`);
    }
  };
  io.out(`Drilling ${plan.baseUrl} as ${plan.clientId}`);
  const credentials = { baseUrl: plan.baseUrl, clientId: plan.clientId, clientSecret: plan.clientSecret };
  const bureau = createClient({ ...credentials, maxRetries: 1 });
  try {
    await step('token', async () => {
      const token = await requestToken(credentials);
      return [token, `a bearer token for ${Math.round(token.expiresIn / 60)} minutes`];
    });
    await step('document', async () => {
      const response = await fetch(`${plan.baseUrl}/v1/openapi.json`);
      if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
      const document = (await response.json()) as { openapi?: string; info?: { version?: string } };
      return [
        document,
        `OpenAPI ${document.openapi}, document ${document.info?.version}, ETag ${response.headers.get('etag') ? 'sent' : 'missing'}`,
      ];
    });
    const profile = await step('profile', async () => {
      const found = await bureau.profile(plan.number, { jurisdiction: plan.jurisdiction });
      return [found, `${found.jurisdiction} ${found.companyNumber} ${found.name}, version ${found.version}, ${found.dataSource} data`];
    });
    await step('search', async () => {
      const page = await bureau.search({ q: profile.name, jurisdiction: profile.jurisdiction, limit: 10 });
      const hit = page.items.find((item) => item.companyNumber === profile.companyNumber);
      if (!hit) throw new Error(`searching "${profile.name}" did not find ${profile.companyNumber} on the first page`);
      return [hit, `"${profile.name}" finds it (${hit.match.type})`];
    });
    await step('watches', async () => {
      for await (const watch of bureau.watches.all()) {
        if (watch.jurisdiction === profile.jurisdiction && watch.companyNumber === profile.companyNumber)
          return [watch, `the profile read made the client watch it (since ${watch.watchedSince})`];
      }
      throw new Error('the company is not among the watched companies after its profile was read');
    });
    if (plan.receiver) await webhookSteps(bureau, plan.receiver, plan.timeoutMs, step);
    else io.out('– webhook    skipped: give --receiver to have a test webhook delivered');
    io.out(`Drill passed in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  } catch (error) {
    if (error instanceof StepFailed) throw new UsageError(error.message);
    throw error;
  }
}

type Step = <T>(name: string, work: () => Promise<[T, string]>) => Promise<T>;

async function webhookSteps(bureau: ReturnType<typeof createClient>, receiver: string, timeoutMs: number, step: Step): Promise<void> {
  const subscription = await step('subscribe', async () => {
    const created = await bureau.webhooks.create({ name: `Drill ${new Date().toISOString()}`, url: receiver });
    return [created, `${created.id} for ${receiver}`];
  });
  try {
    const test = await step('test', async () => {
      const queued = await bureau.webhooks.test(subscription.id);
      return [queued, `webhook.test queued as ${queued.deliveryId}`];
    });
    await step('delivered', async () => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const page = await bureau.webhooks.deliveries(subscription.id, { limit: 10 });
        const attempt = page.items.find((item) => item.deliveryId === test.deliveryId);
        if (attempt?.outcome === 'delivered') return [attempt, `${receiver} answered ${attempt.httpStatus} in ${attempt.durationMs} ms`];
        // A refusal ends the drill at once: the receiver's answer is the news, not its retries.
        if (attempt)
          throw new Error(`the delivery ${attempt.outcome}: ${attempt.httpStatus ?? attempt.error} ${attempt.errorMessage ?? ''}`.trim());
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      throw new Error(`no delivery logged within ${Math.round(timeoutMs / 1000)} s`);
    });
  } finally {
    await bureau.webhooks.delete(subscription.id);
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof BureauApiError)
    return `${error.status} ${error.code}: ${error.detail ?? ''} (request ${error.requestId ?? 'unknown'})`;
  if (error instanceof BureauConnectionError) return `no answer: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

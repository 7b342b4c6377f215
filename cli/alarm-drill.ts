import {
  type AlarmHistoryItem,
  CloudWatchClient,
  type CompositeAlarm,
  DescribeAlarmHistoryCommand,
  DescribeAlarmsCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { ListSubscriptionsByTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { EDGE_REGION } from '../infra/stage-settings';
import type { CliIo } from './io';

/** The clients of one region the alarm drill calls. */
export interface AlarmDrillClients {
  readonly cloudWatch: Pick<CloudWatchClient, 'send'>;
  readonly sns: Pick<SNSClient, 'send'>;
}

/** Where a stage's pages live: the service's region, and us-east-1 for the edge's. */
export interface PageRegion {
  readonly region: string;
  /** The pages' names start with this: `<stack>-page-`, `<stack>-edge-monitoring-page-`. */
  readonly prefix: string;
}

export function pageRegions(stack: string, region: string): PageRegion[] {
  return [
    { region, prefix: `${stack}-page-` },
    { region: EDGE_REGION, prefix: `${stack}-edge-monitoring-page-` },
  ];
}

/**
 * The SDK's clients for a region. AWS_ENDPOINT_URL_CLOUDWATCH and AWS_ENDPOINT_URL_SNS, the SDK's own
 * names for a service's endpoint, are read from the CLI's environment, so the drill can be pointed at
 * stand-ins; with one set, the keys come from the same environment.
 */
export function sdkAlarmDrillClients(env: NodeJS.ProcessEnv): { of(region: string): AlarmDrillClients; close(): void } {
  const opened: { destroy(): void }[] = [];
  const overridden = (endpoint: string | undefined) =>
    endpoint
      ? {
          endpoint,
          credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'local' },
        }
      : {};
  return {
    of: (region) => {
      const cloudWatch = new CloudWatchClient({ region, ...overridden(env.AWS_ENDPOINT_URL_CLOUDWATCH) });
      const sns = new SNSClient({ region, ...overridden(env.AWS_ENDPOINT_URL_SNS) });
      opened.push(cloudWatch, sns);
      return { cloudWatch, sns };
    },
    close: () => {
      for (const client of opened) client.destroy();
    },
  };
}

export interface AlarmDrillPlan {
  readonly regions: readonly PageRegion[];
  readonly clientsOf: (region: string) => AlarmDrillClients;
  /** How long to wait for CloudWatch to record each notification. */
  readonly timeoutMs: number;
  readonly pollMs?: number;
}

/** A step failed: the drill goes on to restore what it changed, then fails. */
class AlarmStepFailed extends Error {}

const DRILL_REASON = 'bureau drill --alarms: proving that this page reaches the people subscribed to it';
const RESTORED_REASON = 'bureau drill --alarms: the drill is over';
/** SNS says so of a subscription the person has not confirmed yet. */
const UNCONFIRMED = new Set(['PendingConfirmation', 'Deleted']);

/**
 * Proves, region by region, that a page reaches people: picks a page (a composite alarm in OK, one
 * no planned work can hold back if there is one), checks that each SNS topic it notifies has a
 * confirmed subscription, sets it to ALARM with CloudWatch's SetAlarmState, reads the page's action
 * history until CloudWatch says it delivered the notification to every topic (or why not), and sets
 * it back to OK whatever happened. Returns the failures, each a sentence; none is a pass.
 */
export async function drillAlarms(io: CliIo, plan: AlarmDrillPlan): Promise<string[]> {
  const failures: string[] = [];
  for (const { region, prefix } of plan.regions) {
    const clients = plan.clientsOf(region);
    const line = (ok: boolean, step: string, text: string) => io.out(`${ok ? '✓' : '✗'} ${region.padEnd(12)} ${step.padEnd(11)} ${text}`);
    const fail = (step: string, text: string) => {
      line(false, step, text);
      failures.push(`${region}, ${step}: ${text}`);
    };
    let page: CompositeAlarm;
    try {
      page = await choosePage(clients, prefix);
    } catch (error) {
      fail('page', reasonOf(error));
      continue;
    }
    const name = page.AlarmName as string;
    const topics = (page.AlarmActions ?? []).filter((action) => action.startsWith('arn:') && action.split(':')[2] === 'sns');
    line(true, 'page', `${name}, notifying ${topics.length} topic${topics.length === 1 ? '' : 's'}`);
    if (topics.length === 0) {
      fail('page', `${name} notifies no SNS topic`);
      continue;
    }
    for (const topic of topics) {
      try {
        const confirmed = await confirmedSubscriptions(clients, topic);
        if (confirmed.length === 0)
          fail('subscribers', `${topic}: no confirmed subscription (an e-mail address must confirm AWS's message once)`);
        else line(true, 'subscribers', `${topic}: ${confirmed.join(', ')}`);
      } catch (error) {
        // A topic of the operator's own in another account may not let us list it: its delivery below is still proved.
        line(false, 'subscribers', `${topic}: cannot list its subscriptions (${reasonOf(error)})`);
      }
    }
    const since = new Date(Date.now() - 2_000);
    const started = performance.now();
    try {
      await clients.cloudWatch.send(new SetAlarmStateCommand({ AlarmName: name, StateValue: 'ALARM', StateReason: DRILL_REASON }));
      line(true, 'alarm', `${name} set to ALARM`);
      const outcomes = await notificationOutcomes(clients, name, topics, since, plan);
      for (const topic of topics) {
        const outcome = outcomes.get(topic);
        const seconds = `${((performance.now() - started) / 1000).toFixed(1)} s`;
        if (!outcome) fail('notified', `${topic}: CloudWatch recorded no notification within ${Math.round(plan.timeoutMs / 1000)} s`);
        else if (outcome.delivered) line(true, 'notified', `${topic}: delivered (${seconds})`);
        else fail('notified', `${topic}: ${outcome.summary}`);
      }
    } catch (error) {
      if (!(error instanceof AlarmStepFailed)) fail('alarm', reasonOf(error));
    } finally {
      try {
        await clients.cloudWatch.send(new SetAlarmStateCommand({ AlarmName: name, StateValue: 'OK', StateReason: RESTORED_REASON }));
        line(true, 'restored', `${name} set back to OK`);
      } catch (error) {
        fail('restored', `${name} is left in ALARM: ${reasonOf(error)}; set it back with aws cloudwatch set-alarm-state`);
      }
    }
  }
  return failures;
}

/** The first page in OK by name, preferring those no actions suppressor can hold back. */
async function choosePage(clients: AlarmDrillClients, prefix: string): Promise<CompositeAlarm> {
  const pages: CompositeAlarm[] = [];
  let token: string | undefined;
  do {
    const page = await clients.cloudWatch.send(
      new DescribeAlarmsCommand({ AlarmNamePrefix: prefix, AlarmTypes: ['CompositeAlarm'], ...(token ? { NextToken: token } : {}) }),
    );
    pages.push(...(page.CompositeAlarms ?? []));
    token = page.NextToken;
  } while (token);
  if (pages.length === 0) throw new AlarmStepFailed(`no page is named ${prefix}…: deploy this version of the stacks first`);
  const ready = pages
    .filter((page) => page.StateValue === 'OK' && page.ActionsEnabled !== false)
    .sort(
      (a, b) =>
        Number(Boolean(a.ActionsSuppressor)) - Number(Boolean(b.ActionsSuppressor)) || (a.AlarmName ?? '').localeCompare(b.AlarmName ?? ''),
    );
  const [chosen] = ready;
  if (!chosen) throw new AlarmStepFailed(`every page named ${prefix}… is in ALARM or has its actions disabled: see to those first`);
  return chosen;
}

async function confirmedSubscriptions(clients: AlarmDrillClients, topic: string): Promise<string[]> {
  const confirmed: string[] = [];
  let token: string | undefined;
  do {
    const page = await clients.sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topic, ...(token ? { NextToken: token } : {}) }));
    for (const subscription of page.Subscriptions ?? []) {
      if (subscription.SubscriptionArn && !UNCONFIRMED.has(subscription.SubscriptionArn))
        confirmed.push(`${subscription.Protocol} ${subscription.Endpoint}`);
    }
    token = page.NextToken;
  } while (token);
  return confirmed;
}

interface Outcome {
  readonly delivered: boolean;
  readonly summary: string;
}

/**
 * Reads the page's action history from `since` until every topic has an outcome or the time is up.
 * CloudWatch records each action it took: "Successfully executed action <arn>", or "Failed to execute
 * action <arn>. Received error: …" (a topic policy that refuses CloudWatch, a key it may not use).
 */
async function notificationOutcomes(
  clients: AlarmDrillClients,
  name: string,
  topics: readonly string[],
  since: Date,
  plan: AlarmDrillPlan,
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  const deadline = Date.now() + plan.timeoutMs;
  for (;;) {
    for (const item of await actionHistory(clients, name, since)) {
      const summary = item.HistorySummary ?? '';
      const topic = topics.find((arn) => summary.includes(arn));
      if (topic && !outcomes.has(topic)) outcomes.set(topic, { delivered: /^Successfully executed action/.test(summary), summary });
    }
    if (outcomes.size === topics.length || Date.now() >= deadline) return outcomes;
    await new Promise((resolve) => setTimeout(resolve, plan.pollMs ?? 2_000));
  }
}

async function actionHistory(clients: AlarmDrillClients, name: string, since: Date): Promise<AlarmHistoryItem[]> {
  const items: AlarmHistoryItem[] = [];
  let token: string | undefined;
  do {
    const page = await clients.cloudWatch.send(
      new DescribeAlarmHistoryCommand({
        AlarmName: name,
        // Without it CloudWatch reads metric alarms only, and a page is a composite alarm.
        AlarmTypes: ['CompositeAlarm'],
        HistoryItemType: 'Action',
        StartDate: since,
        EndDate: new Date(Date.now() + 60_000),
        ScanBy: 'TimestampAscending',
        ...(token ? { NextToken: token } : {}),
      }),
    );
    items.push(...(page.AlarmHistoryItems ?? []));
    token = page.NextToken;
  } while (token);
  return items;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

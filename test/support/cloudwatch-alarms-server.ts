import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetTopicAttributesCommand, PublishCommand, type SNSClient } from '@aws-sdk/client-sns';

/** A composite alarm the stand-in holds: a page, as `<stack>-page-<name>`. */
export interface StandInPage {
  readonly name: string;
  readonly region: string;
  readonly actions: readonly string[];
  readonly suppressor?: string;
  state?: 'OK' | 'ALARM';
}

interface HistoryItem {
  readonly AlarmName: string;
  readonly AlarmType: 'CompositeAlarm';
  readonly Timestamp: number;
  readonly HistoryItemType: 'Action' | 'StateUpdate';
  readonly HistorySummary: string;
}

export interface CloudWatchStandIn {
  /** For AWS_ENDPOINT_URL_CLOUDWATCH. */
  readonly endpoint: string;
  readonly account: string;
  readonly pages: StandInPage[];
  /** Every SetAlarmState it was sent, in order. */
  readonly stateChanges: Array<{ readonly name: string; readonly state: string }>;
  stop(): Promise<void>;
}

/**
 * CloudWatch's alarm state and history, for the operations `bureau drill --alarms` sends (the AWS
 * JSON 1.0 protocol the SDK speaks), over SNS in fauxqs. As CloudWatch does, a page moved to ALARM
 * or OK runs its actions: for each topic it asks SNS for the topic's policy and publishes only if the
 * policy lets CloudWatch's service principal publish for this account's alarms (no policy at all is
 * SNS's default, which does), then records "Successfully executed action <arn>" or "Failed to execute
 * action <arn>. Received error: …" in the page's history. The region is the one the request was
 * signed for.
 */
export async function startCloudWatchStandIn(sns: (region: string) => SNSClient, account = '000000000000'): Promise<CloudWatchStandIn> {
  const pages: StandInPage[] = [];
  const history: HistoryItem[] = [];
  const stateChanges: Array<{ name: string; state: string }> = [];
  const find = (region: string, name: string) => pages.find((page) => page.region === region && page.name === name);
  const arnOf = (page: StandInPage) => `arn:aws:cloudwatch:${page.region}:${account}:alarm:${page.name}`;

  const runActions = async (page: StandInPage, state: string) => {
    for (const topic of page.actions) {
      const refusal = await publishRefusal(sns(page.region), topic, account, arnOf(page));
      if (!refusal)
        await sns(page.region).send(
          new PublishCommand({
            TopicArn: topic,
            Subject: `ALARM: "${page.name}"`,
            Message: JSON.stringify({ AlarmName: page.name, NewStateValue: state }),
          }),
        );
      history.push({
        AlarmName: page.name,
        AlarmType: 'CompositeAlarm',
        Timestamp: Date.now() / 1000,
        HistoryItemType: 'Action',
        HistorySummary: refusal
          ? `Failed to execute action ${topic}. Received error: "${refusal}"`
          : `Successfully executed action ${topic}`,
      });
    }
  };

  const operations: Record<string, (region: string, input: Record<string, unknown>) => Promise<unknown>> = {
    DescribeAlarms: async (region, input) => {
      const types = (input.AlarmTypes as string[] | undefined) ?? ['MetricAlarm'];
      const prefix = (input.AlarmNamePrefix as string | undefined) ?? '';
      const listed = types.includes('CompositeAlarm') ? pages.filter((page) => page.region === region && page.name.startsWith(prefix)) : [];
      return {
        MetricAlarms: [],
        CompositeAlarms: listed.map((page) => ({
          AlarmName: page.name,
          AlarmArn: arnOf(page),
          AlarmActions: page.actions,
          OKActions: page.actions,
          ActionsEnabled: true,
          StateValue: page.state ?? 'OK',
          ...(page.suppressor ? { ActionsSuppressor: page.suppressor } : {}),
        })),
      };
    },
    SetAlarmState: async (region, input) => {
      const page = find(region, input.AlarmName as string);
      if (!page) throw Object.assign(new Error(`Alarm ${input.AlarmName} not found`), { type: 'ResourceNotFound' });
      const state = input.StateValue as 'OK' | 'ALARM';
      stateChanges.push({ name: page.name, state });
      if ((page.state ?? 'OK') === state) return {};
      page.state = state;
      history.push({
        AlarmName: page.name,
        AlarmType: 'CompositeAlarm',
        Timestamp: Date.now() / 1000,
        HistoryItemType: 'StateUpdate',
        HistorySummary: `Alarm updated to ${state}`,
      });
      // CloudWatch acts after it answers.
      setTimeout(() => void runActions(page, state), 50);
      return {};
    },
    DescribeAlarmHistory: async (region, input) => {
      const types = (input.AlarmTypes as string[] | undefined) ?? ['MetricAlarm'];
      const start = (input.StartDate as number | undefined) ?? 0;
      const items = history.filter(
        (item) =>
          types.includes(item.AlarmType) &&
          find(region, item.AlarmName) &&
          item.AlarmName === input.AlarmName &&
          (!input.HistoryItemType || item.HistoryItemType === input.HistoryItemType) &&
          item.Timestamp >= start,
      );
      return { AlarmHistoryItems: items };
    },
  };

  const server = createServer((request, response) => {
    void (async () => {
      const body = JSON.parse((await read(request)) || '{}') as Record<string, unknown>;
      const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const region = /Credential=[^/]+\/\d+\/([^/]+)\//.exec(String(request.headers.authorization))?.[1] ?? 'us-east-1';
      try {
        const handler = operations[operation];
        if (!handler) throw Object.assign(new Error(`${operation} is not played by this stand-in`), { type: 'InvalidAction' });
        const output = await handler(region, body);
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(output));
      } catch (error) {
        const { type, message } = error as { type?: string; message: string };
        response
          .writeHead(400, { 'content-type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify({ __type: type ?? 'InternalFailure', message }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    account,
    pages,
    stateChanges,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function read(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// biome-ignore lint/suspicious/noExplicitAny: a policy document is read loosely
type Statement = any;

/**
 * Why SNS refuses CloudWatch's publish for this alarm, or undefined if it allows it: an explicit
 * deny (the TLS rule does not apply, CloudWatch publishes over TLS), else an allow for the service
 * principal whose conditions hold. A topic without a policy has SNS's default one, which allows it.
 */
async function publishRefusal(sns: SNSClient, topic: string, account: string, alarmArn: string): Promise<string | undefined> {
  const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn: topic }));
  if (!Attributes?.Policy) return undefined;
  const statements = [JSON.parse(Attributes.Policy).Statement].flat() as Statement[];
  const context: Record<string, string> = { 'aws:SourceAccount': account, 'aws:SourceArn': alarmArn, 'aws:SecureTransport': 'true' };
  const applies = (statement: Statement) =>
    [statement.Action].flat().some((action: string) => action === 'sns:Publish' || action === 'sns:*' || action === '*') &&
    (statement.Principal === '*' || [statement.Principal?.Service].flat().includes('cloudwatch.amazonaws.com')) &&
    conditionsHold(statement.Condition ?? {}, context);
  if (statements.some((statement) => statement.Effect === 'Deny' && applies(statement))) return 'explicitly denied by the topic policy';
  if (statements.some((statement) => statement.Effect === 'Allow' && applies(statement))) return undefined;
  return `CloudWatch Alarms does not have authorization to publish to the SNS topic ${topic}`;
}

function conditionsHold(conditions: Record<string, Record<string, string | string[]>>, context: Record<string, string>): boolean {
  const like = (pattern: string, value: string) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    ).test(value);
  return Object.entries(conditions).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) => {
      const value = context[key];
      if (value === undefined) return false;
      const options = [expected].flat();
      if (operator === 'StringEquals') return options.includes(value);
      if (operator === 'ArnLike' || operator === 'StringLike') return options.some((pattern) => like(pattern, value));
      if (operator === 'Bool') return options.includes(value);
      throw new Error(`The stand-in does not read the ${operator} condition`);
    }),
  );
}

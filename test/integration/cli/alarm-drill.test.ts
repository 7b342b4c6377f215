import { randomUUID } from 'node:crypto';
import { CreateTopicCommand, SetTopicAttributesCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main';
import { Alarms } from '../../../infra/constructs/alarms';
import { type LocalSqs, startLocalSqs } from '../../../local/fauxqs';
import { type CloudWatchStandIn, startCloudWatchStandIn } from '../../support/cloudwatch-alarms-server';

const SERVICE_REGION = 'eu-west-2';
const EDGE_REGION = 'us-east-1';
const ACCOUNT = '000000000000';

// biome-ignore lint/suspicious/noExplicitAny: a synthesized policy document is read loosely
type Loose = any;

/** The alarm topic's policy as the stack deploys it, its intrinsics resolved for a topic in a region. */
function deployedTopicPolicy(region: string, topicArn: string): string {
  const stack = new Stack(new App(), 'Policies', { env: { region, account: ACCOUNT } });
  const alarms = new Alarms(stack, 'Alarms');
  const topicRef = stack.getLogicalId(alarms.paging.node.defaultChild as never);
  const [policy] = Object.values(Template.fromStack(stack).findResources('AWS::SNS::TopicPolicy')).filter((resource) =>
    JSON.stringify(resource.Properties.Topics).includes(topicRef),
  );
  const pseudo: Record<string, string> = {
    'AWS::AccountId': ACCOUNT,
    'AWS::Partition': 'aws',
    'AWS::Region': region,
    [topicRef]: topicArn,
  };
  const resolve = (value: Loose): Loose => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value && typeof value === 'object') {
      if ('Ref' in value) return pseudo[value.Ref] ?? value;
      if ('Fn::Join' in value) return (value['Fn::Join'][1] as Loose[]).map(resolve).join(value['Fn::Join'][0]);
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolve(inner)]));
    }
    return value;
  };
  return JSON.stringify(resolve(policy?.Properties.PolicyDocument));
}

/** What CDK wrote for an `enforceSSL` topic before: the TLS rule alone, which replaces SNS's default policy. */
function tlsRuleAlone(topicArn: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'AllowPublishThroughSSLOnly',
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Resource: topicArn,
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ],
  });
}

let local: LocalSqs;
let standIn: CloudWatchStandIn;
const clients: Array<{ destroy(): void }> = [];
const config = (region: string) => ({ region, endpoint: local.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const snsIn = (region: string) => {
  const client = new SNSClient(config(region));
  clients.push(client);
  return client;
};

beforeAll(async () => {
  local = await startLocalSqs();
});

afterEach(async () => {
  await standIn?.stop();
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await local?.stop();
});

interface Region {
  readonly topicArn: string;
  /** The queue subscribed for the person on call, when there is one. */
  readonly inbox?: string;
}

/** A paging topic in a region with the given policy, and a person's queue subscribed unless said. */
async function pagingTopic(region: string, policy: (arn: string) => string, subscribed = true): Promise<Region> {
  const sns = snsIn(region);
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `pages-${randomUUID().slice(0, 8)}` }));
  const topicArn = TopicArn as string;
  await sns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: policy(topicArn) }));
  if (!subscribed) return { topicArn };
  const sqs = new SQSClient(config(region));
  clients.push(sqs);
  const name = `on-call-${randomUUID().slice(0, 8)}`;
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: Attributes?.QueueArn as string }));
  return { topicArn, inbox: QueueUrl as string };
}

/** What reached the person's queue: read until `expected` messages came, or for two seconds. */
async function received(region: string, inbox: string, expected = 2): Promise<string[]> {
  const sqs = new SQSClient(config(region));
  clients.push(sqs);
  const messages: string[] = [];
  const deadline = Date.now() + 2_000;
  while (messages.length < expected && Date.now() < deadline) {
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: inbox, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    messages.push(...(Messages ?? []).map((message) => JSON.parse(message.Body as string).Message as string));
  }
  return messages;
}

/** The stage Bureau's pages: two in its region (one planned work may hold back), one at the edge. */
async function stage(service: Region, edge: Region): Promise<void> {
  standIn = await startCloudWatchStandIn(snsIn, ACCOUNT);
  standIn.pages.push(
    { name: 'Bureau-page-ApiFailing', region: SERVICE_REGION, actions: [service.topicArn] },
    {
      name: 'Bureau-page-ChangeEventsLate',
      region: SERVICE_REGION,
      actions: [service.topicArn],
      suppressor: `arn:aws:cloudwatch:${SERVICE_REGION}:${ACCOUNT}:alarm:Bureau-AlarmsPlannedWork`,
    },
    { name: 'Bureau-edge-monitoring-page-EdgeFailing', region: EDGE_REGION, actions: [edge.topicArn] },
    // Another stage's page in the same region is never touched.
    { name: 'Bureau-dev-page-ApiFailing', region: SERVICE_REGION, actions: [service.topicArn] },
  );
}

async function drill(argv: string[] = ['--stack', 'Bureau', '--region', SERVICE_REGION]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run([...argv, 'drill', '--alarms', '--timeout', '10s'], {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    env: { AWS_ENDPOINT_URL_CLOUDWATCH: standIn.endpoint, AWS_ENDPOINT_URL_SNS: local.endpoint },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('bureau drill --alarms', () => {
  it('pages through the topics as the stack deploys them, in both regions, and sets each page back to OK', async () => {
    const service = await pagingTopic(SERVICE_REGION, (arn) => deployedTopicPolicy(SERVICE_REGION, arn));
    const edge = await pagingTopic(EDGE_REGION, (arn) => deployedTopicPolicy(EDGE_REGION, arn));
    await stage(service, edge);

    const outcome = await drill();

    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(new RegExp(`✓ ${SERVICE_REGION}\\s+notified\\s+${service.topicArn}: delivered`));
    expect(outcome.stdout).toMatch(new RegExp(`✓ ${EDGE_REGION}\\s+notified\\s+${edge.topicArn}: delivered`));
    expect(outcome.stdout).toMatch(/✓ eu-west-2\s+subscribers .*: sqs arn:aws:sqs:/);
    expect(outcome.stdout).toMatch(/Alarm drill passed in [\d.]+ s\./);
    // The page no planned work can hold back is the one drilled, and each goes to ALARM and back.
    expect(standIn.stateChanges).toEqual([
      { name: 'Bureau-page-ApiFailing', state: 'ALARM' },
      { name: 'Bureau-page-ApiFailing', state: 'OK' },
      { name: 'Bureau-edge-monitoring-page-EdgeFailing', state: 'ALARM' },
      { name: 'Bureau-edge-monitoring-page-EdgeFailing', state: 'OK' },
    ]);
    expect(standIn.pages.every((page) => (page.state ?? 'OK') === 'OK')).toBe(true);
    // The person on call got the page, and then word that it is over.
    const inService = (await received(SERVICE_REGION, service.inbox as string)).map((message) => JSON.parse(message).NewStateValue);
    expect(inService.sort()).toEqual(['ALARM', 'OK']);
    expect(await received(EDGE_REGION, edge.inbox as string)).toHaveLength(2);
  });

  it('fails, naming the topic and CloudWatch’s error, when the topic policy holds only the TLS rule, and still sets the page back', async () => {
    const service = await pagingTopic(SERVICE_REGION, tlsRuleAlone);
    const edge = await pagingTopic(EDGE_REGION, (arn) => deployedTopicPolicy(EDGE_REGION, arn));
    await stage(service, edge);

    const outcome = await drill();

    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(
      new RegExp(`✗ ${SERVICE_REGION}\\s+notified\\s+${service.topicArn}: Failed to execute action .*does not have authorization`),
    );
    expect(outcome.stdout).toMatch(new RegExp(`✓ ${EDGE_REGION}\\s+notified`));
    expect(outcome.stderr).toContain('the alarm drill failed: eu-west-2, notified');
    expect(standIn.pages.every((page) => (page.state ?? 'OK') === 'OK')).toBe(true);
    expect(await received(SERVICE_REGION, service.inbox as string)).toEqual([]);
  });

  it('fails when a paging topic has no confirmed subscriber: the notification reaches no one', async () => {
    const service = await pagingTopic(SERVICE_REGION, (arn) => deployedTopicPolicy(SERVICE_REGION, arn), false);
    const edge = await pagingTopic(EDGE_REGION, (arn) => deployedTopicPolicy(EDGE_REGION, arn));
    await stage(service, edge);

    const outcome = await drill();

    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(new RegExp(`✗ ${SERVICE_REGION}\\s+subscribers\\s+${service.topicArn}: no confirmed subscription`));
    expect(standIn.pages.every((page) => (page.state ?? 'OK') === 'OK')).toBe(true);
  });

  it('fails when a region has no page of the stack, and asks for --stack and the region', async () => {
    const service = await pagingTopic(SERVICE_REGION, (arn) => deployedTopicPolicy(SERVICE_REGION, arn));
    const edge = await pagingTopic(EDGE_REGION, (arn) => deployedTopicPolicy(EDGE_REGION, arn));
    await stage(service, edge);

    const other = await drill(['--stack', 'Elsewhere', '--region', SERVICE_REGION]);
    const noStack = await drill(['--region', SERVICE_REGION]);
    const noRegion = await drill(['--stack', 'Bureau']);

    expect(other.code).toBe(1);
    expect(other.stdout).toContain('no page is named Elsewhere-page-…');
    expect(standIn.stateChanges).toEqual([]);
    expect(noStack.stderr).toContain('drill --alarms needs --stack');
    expect(noRegion.stderr).toContain('--region');
  });
});

import { readFileSync } from 'node:fs';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { type BureauStage, buildStage } from '../../infra/bureau-app';
import { ACCESS_LOG_FIELDS } from '../../infra/constructs/edge-access-logs';
import { edgeParameterNames } from '../../infra/constructs/edge-parameters';
import { type EdgeSettings, type StageSettings, stageSettings } from '../../infra/stage-settings';
import { completedStage, EDGE_IN_ROUTE_53 } from '../support/stages';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

const noDomain: EdgeSettings = completedStage('dev').edge;
const withDomain: EdgeSettings = { ...noDomain, domainName: EDGE_IN_ROUTE_53.domainName, hostedZone: EDGE_IN_ROUTE_53.hostedZone };

function synthesize(settings: StageSettings): BureauStage & { templates: Record<'edge' | 'service' | 'monitoring', Loose> } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stage = buildStage(app, settings, '123456789012');
  const templates = {
    edge: Template.fromStack(stage.edge).toJSON(),
    service: Template.fromStack(stage.service).toJSON(),
    monitoring: Template.fromStack(stage.monitoring).toJSON(),
  };
  return { ...stage, templates };
}

const resourcesOf = (template: Loose, type: string): Loose[] =>
  Object.values(template.Resources as Record<string, Loose>).filter((resource) => resource.Type === type);
const nagFindings = (stack: Stack) => new AwsSolutionsChecks().validateScope(stack).violations.map((violation) => violation.ruleName);

const dev = synthesize(completedStage('dev'));
const devWithDomain = synthesize({ ...completedStage('dev'), edge: withDomain });

describe("a stage's three stacks", () => {
  it('deploy in order: us-east-1 edge, the service in its region, then the us-east-1 monitoring', () => {
    expect(dev.edge.region).toBe('us-east-1');
    expect(dev.service.region).toBe('eu-west-2');
    expect(dev.monitoring.region).toBe('us-east-1');
    expect(dev.service.dependencies).toEqual([dev.edge]);
    expect(dev.monitoring.dependencies).toEqual([dev.service]);
  });

  it('hand each other values through SSM parameters, never exports, so none can hold another in place', () => {
    for (const template of [...Object.values(dev.templates), ...Object.values(devWithDomain.templates)]) {
      const text = JSON.stringify(template);
      expect(text).not.toContain('Fn::ImportValue');
      expect(text).not.toContain('CrossRegionExport');
      expect(Object.values((template.Outputs ?? {}) as Record<string, Loose>).filter((output) => output.Export)).toEqual([]);
    }
    const names = edgeParameterNames('Bureau-dev');
    const writer = resourcesOf(dev.templates.service, 'Custom::AWS').find((resource) =>
      JSON.stringify(resource.Properties).includes('putParameter'),
    );
    // The service writes its distribution's id in us-east-1, and deletes it with the stack.
    expect(JSON.stringify(writer?.Properties)).toContain(names.distributionId);
    expect(JSON.stringify(writer?.Properties.Create)).toContain('us-east-1');
    expect(JSON.stringify(writer?.Properties.Delete)).toContain('deleteParameter');
    // The monitoring stack reads it when it deploys.
    const parameters = Object.values(dev.templates.monitoring.Parameters as Record<string, Loose>);
    expect(parameters).toContainEqual(
      expect.objectContaining({ Type: 'AWS::SSM::Parameter::Value<String>', Default: names.distributionId }),
    );
  });

  it("give every function a log group with the stage's retention, the CDK's own functions too", () => {
    for (const template of Object.values(dev.templates)) {
      for (const fn of resourcesOf(template, 'AWS::Lambda::Function')) {
        const group = fn.Properties.LoggingConfig?.LogGroup;
        expect(group, JSON.stringify(fn.Properties.Description ?? fn.Properties.Handler)).toEqual({ Ref: expect.any(String) });
        expect(template.Resources[group.Ref].Properties.RetentionInDays).toEqual(expect.any(Number));
      }
    }
    const functions = Object.values(dev.templates).flatMap((template) => resourcesOf(template, 'AWS::Lambda::Function'));
    // The service's custom resource function (reading and writing the edge parameters) among them.
    expect(functions.some((fn) => JSON.stringify(fn.Properties.Handler) === '"index.handler"')).toBe(true);
  });

  it('pass cdk-nag, every one of them', () => {
    expect(nagFindings(dev.edge)).toEqual([]);
    expect(nagFindings(dev.service)).toEqual([]);
    expect(nagFindings(dev.monitoring)).toEqual([]);
  });

  it("log every request at the edge with the caller's own address, and never cookies or query strings", () => {
    const [delivery] = resourcesOf(dev.templates.monitoring, 'AWS::Logs::Delivery');
    const [source] = resourcesOf(dev.templates.monitoring, 'AWS::Logs::DeliverySource');
    const [group] = resourcesOf(dev.templates.monitoring, 'AWS::Logs::LogGroup');

    expect(delivery.Properties.RecordFields).toEqual([...ACCESS_LOG_FIELDS]);
    expect(delivery.Properties.RecordFields).toContain('c-ip');
    expect(delivery.Properties.RecordFields).not.toContain('cs(Cookie)');
    expect(delivery.Properties.RecordFields).not.toContain('cs-uri-query');
    expect(source.Properties.LogType).toBe('ACCESS_LOGS');
    expect(JSON.stringify(source.Properties.ResourceArn)).toContain('distribution/');
    expect(group.Properties.RetentionInDays).toBe(completedStage('dev').accessLogRetentionDays);
  });
});

describe('alarm destinations', () => {
  const topics = ['arn:aws:sns:eu-west-2:123456789012:pager', 'arn:aws:sns:us-east-1:123456789012:chat'];
  const staged = synthesize({ ...completedStage('prod'), alarms: { emails: ['ops@bureau.example'], topicArns: topics } });

  it("reach the stage's people from both regions: e-mail on every topic, each operator topic from the pages of its region", () => {
    for (const [template, topic] of [
      [staged.templates.service, topics[0]],
      [staged.templates.monitoring, topics[1]],
    ] as const) {
      expect(resourcesOf(template, 'AWS::SNS::Subscription').map((subscription) => subscription.Properties)).toContainEqual(
        expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@bureau.example' }),
      );
      const topicRefs = resourcesOf(template, 'AWS::SNS::Topic').length;
      expect(resourcesOf(template, 'AWS::SNS::Subscription')).toHaveLength(topicRefs);
      const pages = resourcesOf(template, 'AWS::CloudWatch::CompositeAlarm');
      expect(pages.length).toBeGreaterThan(0);
      for (const page of pages) {
        expect(page.Properties.AlarmActions).toContain(topic);
        expect(page.Properties.OKActions).toContain(topic);
        expect(JSON.stringify(page.Properties.AlarmActions)).not.toContain(topics.find((other) => other !== topic));
      }
      // Tickets go to the ticket topic, which the addresses receive: never to the pager.
      for (const alarm of resourcesOf(template, 'AWS::CloudWatch::Alarm'))
        expect(JSON.stringify(alarm.Properties.AlarmActions ?? [])).not.toContain('arn:aws:sns');
    }
  });

  it('watch CloudFront and its firewall from us-east-1, where their metrics are', () => {
    const metrics = resourcesOf(staged.templates.monitoring, 'AWS::CloudWatch::Alarm').map((alarm) => JSON.stringify(alarm.Properties));
    expect(metrics.some((alarm) => alarm.includes('AWS/CloudFront') && alarm.includes('5xxErrorRate'))).toBe(true);
    expect(metrics.some((alarm) => alarm.includes('AWS/WAFV2') && alarm.includes('BlockedRequests'))).toBe(true);
  });

  it('are required of a production stage: the checked-in prod refuses to build until it names someone', () => {
    expect(() => stageSettings('prod')).toThrow(/production stage's alarms must reach someone/);
  });
});

describe('changing the domain', () => {
  // The way back is synthesized afresh, so that it is compared with the first synth and not with itself.
  const steps = [dev, devWithDomain, synthesize(completedStage('dev'))];
  const certificateReader = (template: Loose) =>
    resourcesOf(template, 'Custom::AWS').find((resource) => JSON.stringify(resource.Properties).includes('certificate-arn'));

  it('from none to a domain and back synthesizes at each step, with no export to get stuck', () => {
    const [before, domain, after] = steps.map((step) => step.templates) as [Loose, Loose, Loose];

    expect(resourcesOf(before.edge, 'AWS::CertificateManager::Certificate')).toEqual([]);
    expect(certificateReader(before.service)).toBeUndefined();
    // With the domain the edge makes the certificate and publishes its ARN; the service reads it.
    expect(resourcesOf(domain.edge, 'AWS::CertificateManager::Certificate')).toHaveLength(1);
    expect(certificateReader(domain.service)).toBeDefined();
    const distribution = resourcesOf(domain.service, 'AWS::CloudFront::Distribution')[0];
    expect(distribution.Properties.DistributionConfig.Aliases).toEqual(['api.bureau.example']);
    expect(JSON.stringify(distribution.Properties.DistributionConfig.ViewerCertificate.AcmCertificateArn)).toContain('Parameter.Value');
    // And back: the same templates as before the domain.
    expect(after.edge).toEqual(before.edge);
    expect(after.service).toEqual(before.service);
  });

  it('keeps a certificate the distribution may still hold when the edge stack lets go of it', () => {
    const [certificate] = Object.values(steps[1]?.templates.edge.Resources as Record<string, Loose>).filter(
      (resource) => resource.Type === 'AWS::CertificateManager::Certificate',
    );
    expect(certificate.DeletionPolicy).toBe('Retain');
    expect(certificate.UpdateReplacePolicy).toBe('Retain');
  });

  it('reads the certificate again whenever the domain changes, since a custom resource runs only when its properties do', () => {
    const other = synthesize({ ...completedStage('dev'), edge: { ...withDomain, domainName: 'api2.bureau.example' } });
    const first = certificateReader(steps[1]?.templates.service).Properties.Create;
    const second = certificateReader(other.templates.service).Properties.Create;
    expect(first).not.toEqual(second);
  });
});

/**
 * The logical IDs that stages deployed as two stacks (the edge's values handed over as CDK
 * cross-region references) hold their data and their edge under. An ID that changes is a resource
 * CloudFormation replaces: an empty table, a new key, a new distribution name.
 */
const DEPLOYED_IDS = {
  edge: { FirewallWebAcl5A849C4E: 'AWS::WAFv2::WebACL', Certificate4E7ABB08: 'AWS::CertificateManager::Certificate' },
  service: {
    TablesclientsA46F2166: 'AWS::DynamoDB::Table',
    TablescompaniesC6C8C97A: 'AWS::DynamoDB::Table',
    Tablesdeliveries941B6391: 'AWS::DynamoDB::Table',
    Tablesevents5B2337FE: 'AWS::DynamoDB::Table',
    TablesregisterStreams91F682D2: 'AWS::DynamoDB::Table',
    Tableswatches95DD8D85: 'AWS::DynamoDB::Table',
    Tableswebhooks91698196: 'AWS::DynamoDB::Table',
    Tablesworkspace9A0909CF: 'AWS::DynamoDB::Table',
    QueuesdeliveriesQueueB95AC882: 'AWS::SQS::Queue',
    QueuesdeliveriesDeadLetterC4FC878E: 'AWS::SQS::Queue',
    QueuesfanoutQueueD2458A4E: 'AWS::SQS::Queue',
    QueuesfanoutDeadLetter21657037: 'AWS::SQS::Queue',
    QueuesstreamFailuresQueue366CBECB: 'AWS::SQS::Queue',
    QueuesstreamFailuresDeadLetterFAD033AA: 'AWS::SQS::Queue',
    SigningKey49B95470: 'AWS::KMS::Key',
    SigningKeySecretDAB0A568: 'AWS::SecretsManager::Secret',
    WebhookSecretsKey0FC4A2F5: 'AWS::KMS::Key',
    RegisterStreamStreamKeyAD2316C8: 'AWS::SecretsManager::Secret',
    FrontDoorOriginSecret617BD22F: 'AWS::SecretsManager::Secret',
    FrontDoorDistribution20F29BA2: 'AWS::CloudFront::Distribution',
  },
} as const;

describe('upgrading a stage deployed as two stacks', () => {
  it('replaces none of its tables, queues, keys, secrets, web ACL, certificate or distribution', () => {
    for (const part of ['edge', 'service'] as const) {
      const types = Object.fromEntries(
        Object.entries(devWithDomain.templates[part].Resources as Record<string, Loose>).map(([id, resource]) => [id, resource.Type]),
      );
      expect(types).toMatchObject(DEPLOYED_IDS[part]);
    }
  });
});

describe('a new stage from the documented settings alone', () => {
  it('synthesizes and passes cdk-nag', () => {
    const deployDoc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const section = deployDoc.slice(deployDoc.indexOf('### A new stage'));
    const example = /```json\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example, 'docs/deploy.md, "A new stage", gives a stage in a json block').toBeDefined();
    const stage = Object.keys(JSON.parse(example as string) as Record<string, unknown>)[0] as string;

    const settings = stageSettings(stage, example);
    const synthesized = synthesize(settings);

    expect(synthesized.service.stackName).toBe(settings.stackName);
    expect(nagFindings(synthesized.edge)).toEqual([]);
    expect(nagFindings(synthesized.service)).toEqual([]);
    expect(nagFindings(synthesized.monitoring)).toEqual([]);
  });
});

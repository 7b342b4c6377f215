import { readFileSync } from 'node:fs';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildStage } from '../../infra/bureau-app';
import { BureauStack, type BureauStackProps } from '../../infra/stack';
import { defaultServiceStack } from '../support/service-stack';
import { completedStage } from '../support/stages';
import { TEST_WEB_ACL } from '../support/web-acl';

interface Resource {
  Type: string;
  DeletionPolicy?: string;
}

/** What `cdk destroy` leaves behind of these stacks: every resource whose deletion policy keeps it, by type. */
function keptResources(stacks: readonly Stack[]): Map<string, string[]> {
  const kept = new Map<string, string[]>();
  for (const stack of stacks) {
    const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
    for (const [id, resource] of Object.entries(resources)) {
      if (resource.DeletionPolicy !== 'Retain' && resource.DeletionPolicy !== 'RetainExceptOnCreate') continue;
      kept.set(resource.Type, [...(kept.get(resource.Type) ?? []), `${stack.stackName}/${id}`]);
    }
  }
  return kept;
}

function serviceStack(settings: BureauStackProps['settings']): Stack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new BureauStack(app, 'Test', { edge: { webAclArn: TEST_WEB_ACL }, settings });
}

/** docs/deploy.md's "Tear down" section, up to the next section. */
function teardownSection(): string {
  const guide = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
  const start = guide.search(/^## \d+\. Tear down$/m);
  expect(start, 'docs/deploy.md has a "Tear down" section').toBeGreaterThan(-1);
  const rest = guide.slice(start);
  const end = rest.slice(3).search(/^## /m);
  return end === -1 ? rest : rest.slice(0, end + 3);
}

describe('tearing a stage down', () => {
  it.each([
    ['as checked in', {}],
    ['with fixed delivery addresses', { egress: { fixedAddresses: true, addresses: 1, ports: [443] } }],
    [
      'with a domain of its own in Route 53',
      {
        edge: {
          domainName: 'api.bureau.example',
          hostedZone: { id: 'Z0123456789', name: 'bureau.example' },
          certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123',
          requestsPerAddressPer5Minutes: 3000,
          signInsPerAddressPer5Minutes: 100,
          originSecretRevision: 1,
        },
      },
    ],
  ] as const)('documents every kind of resource the service stack keeps after cdk destroy (%s)', (_, settings) => {
    const kept = keptResources([Object.keys(settings).length === 0 ? defaultServiceStack().stack : serviceStack(settings)]);
    const section = teardownSection();

    // The tables, their keys and the logs at least: a stack that kept nothing would mean this test reads nothing.
    expect([...kept.keys()]).toEqual(expect.arrayContaining(['AWS::DynamoDB::Table', 'AWS::KMS::Key', 'AWS::Logs::LogGroup']));
    for (const [type, ids] of kept) expect(section, `${type} is kept (${ids.join(', ')}) but "Tear down" does not name it`).toContain(type);
  });

  it("documents what the stage's us-east-1 stacks keep too: the domain's certificate, CloudFront's access log", () => {
    const prod = completedStage('prod');
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stage = buildStage(app, {
      ...prod,
      edge: {
        ...prod.edge,
        domainName: 'api.bureau.example',
        hostedZone: { id: 'Z0123456789', name: 'bureau.example' },
        certificateArn: null,
      },
    });
    const kept = keptResources([stage.edge, stage.monitoring]);
    const section = teardownSection();

    expect([...kept.keys()]).toEqual(expect.arrayContaining(['AWS::CertificateManager::Certificate', 'AWS::Logs::LogGroup']));
    for (const [type, ids] of kept) expect(section, `${type} is kept (${ids.join(', ')}) but "Tear down" does not name it`).toContain(type);
  });
});

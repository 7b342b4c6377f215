import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { functions as catalogue } from '../../infra/catalogue';
import { BureauStack } from '../../infra/stack';
import { TEST_WEB_ACL } from '../support/web-acl';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

function synthesize(fixedAddresses: boolean, ports: readonly number[] = [443, 8443]) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BureauStack(app, 'Egress', {
    env: { region: 'eu-west-2' },
    settings: { egress: { fixedAddresses, addresses: 2, ports } },
    edge: { webAclArn: TEST_WEB_ACL },
  });
  const template = Template.fromStack(stack);
  const logicalId = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const lambdaOf = (id: string) => template.toJSON().Resources[logicalId(stack.functions.get(id) as IConstruct)] as { Properties: Loose };
  return { stack, template, lambdaOf };
}

describe('delivery ports', () => {
  it('reach every function that checks or sends to a webhook URL, as the stage allows them', () => {
    const { lambdaOf } = synthesize(false, [443, 9443]);

    for (const id of ['webhooks', 'workspace', 'sender']) {
      expect(lambdaOf(id).Properties.Environment.Variables.WEBHOOK_PORTS, id).toBe('443,9443');
    }
  });
});

describe('fixed delivery addresses', () => {
  it('are off unless the stage asks: no VPC, no NAT gateway, no address', () => {
    const { template, lambdaOf } = synthesize(false);

    template.resourceCountIs('AWS::EC2::VPC', 0);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::EIP', 0);
    expect(lambdaOf('sender').Properties.VpcConfig).toBeUndefined();
    expect(template.toJSON().Outputs.DeliveryAddresses).toBeUndefined();
  });

  it('send every delivery through NAT gateways whose Elastic IPs the stack keeps and lists', () => {
    const { stack, template, lambdaOf } = synthesize(true);
    const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Loose }>;
    const eips = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::EC2::EIP');
    const nats = Object.values(resources).filter((resource) => resource.Type === 'AWS::EC2::NatGateway');

    expect(eips).toHaveLength(2);
    expect(nats.map((nat) => nat.Properties.AllocationId).sort()).toEqual(
      eips.map(([id]) => ({ 'Fn::GetAtt': [id, 'AllocationId'] })).sort(),
    );
    expect(template.toJSON().Outputs.DeliveryAddresses.Value).toEqual({
      'Fn::Join': [',', eips.map(([id]) => ({ 'Fn::GetAtt': [id, 'PublicIp'] }))],
    });
    // The sender runs in the private subnets, whose only way out is a NAT gateway.
    const privateSubnets = stack.deliveryEgress?.vpc.privateSubnets.map((subnet) => ({
      Ref: stack.getLogicalId(subnet.node.defaultChild as CfnElement),
    }));
    expect(lambdaOf('sender').Properties.VpcConfig.SubnetIds).toEqual(privateSubnets);
    for (const route of Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::EC2::Route' && resource.Properties.NatGatewayId,
    )) {
      expect(route.Properties.DestinationCidrBlock).toBe('0.0.0.0/0');
    }
    // Only what talks to subscribers' servers moves into the VPC.
    for (const spec of catalogue.filter((spec) => !spec.fixedEgress))
      expect(lambdaOf(spec.id).Properties.VpcConfig, spec.id).toBeUndefined();
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      ServiceName: { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.dynamodb']] },
    });
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'ALL', LogDestinationType: 'cloud-watch-logs' });
    expect(new AwsSolutionsChecks().validateScope(stack).violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});

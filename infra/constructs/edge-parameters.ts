import { Arn, Stack, Validations } from 'aws-cdk-lib';
import { AwsCustomResource, AwsCustomResourcePolicy, type AwsSdkCall, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { EDGE_REGION } from '../stage-settings';

/**
 * The SSM parameters in us-east-1 by which a stage's stacks hand each other what CloudFront needs.
 *
 * They replace CloudFormation exports on purpose: an export cannot change while another stack
 * imports it, so a strong reference to the certificate made a domain change fail ("Exports cannot
 * be updated"). A parameter is read at deploy time and may change freely; the stacks' order in
 * `cdk deploy --all` (edge, service, edge monitoring) makes each read see the value just written.
 */
export function edgeParameterNames(stackName: string) {
  const prefix = `/bureau/${stackName}/edge`;
  return {
    /** Written by the edge stack: the web ACL CloudFront is put behind. */
    webAclArn: `${prefix}/web-acl-arn`,
    /** Written by the edge stack when it makes the domain's certificate. */
    certificateArn: `${prefix}/certificate-arn`,
    /** Written by the service stack: the distribution the edge monitoring stack watches and logs. */
    distributionId: `${prefix}/distribution-id`,
  } as const;
}

export type EdgeParameterNames = ReturnType<typeof edgeParameterNames>;

const parameterArn = (scope: Construct, name: string) =>
  Arn.format({ service: 'ssm', region: EDGE_REGION, resource: 'parameter', resourceName: name.slice(1) }, Stack.of(scope));

/** Reads us-east-1 parameters from a stack in any region, at deploy time. */
export class EdgeParameterReader extends Construct {
  /**
   * @param readAgainWhen changes whenever a value may have changed (the domain, say): a custom
   * resource runs only when its properties change, and the parameter's name alone never does.
   */
  read(id: string, name: string, readAgainWhen: string): string {
    const call: AwsSdkCall = {
      service: 'SSM',
      action: 'getParameter',
      parameters: { Name: name },
      region: EDGE_REGION,
      physicalResourceId: PhysicalResourceId.of(`${name}@${readAgainWhen}`),
      outputPaths: ['Parameter.Value'],
    };
    const reader = new AwsCustomResource(this, id, {
      onCreate: call,
      onUpdate: call,
      policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: [parameterArn(this, name)] }),
      installLatestAwsSdk: false,
    });
    acknowledgeCustomResourceFunction(this);
    return reader.getResponseField('Parameter.Value');
  }
}

/** Writes one us-east-1 parameter from a stack in any region, and deletes it with the stack. */
export class EdgeParameterWriter extends Construct {
  constructor(scope: Construct, id: string, props: { readonly name: string; readonly value: string; readonly description: string }) {
    super(scope, id);
    const put: AwsSdkCall = {
      service: 'SSM',
      action: 'putParameter',
      parameters: { Name: props.name, Value: props.value, Type: 'String', Overwrite: true, Description: props.description },
      region: EDGE_REGION,
      physicalResourceId: PhysicalResourceId.of(props.name),
    };
    new AwsCustomResource(this, 'Parameter', {
      onCreate: put,
      onUpdate: put,
      onDelete: { service: 'SSM', action: 'deleteParameter', parameters: { Name: props.name }, region: EDGE_REGION },
      policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: [parameterArn(this, props.name)] }),
      installLatestAwsSdk: false,
    });
    acknowledgeCustomResourceFunction(this);
  }
}

/** The CDK's one function per stack behind every AwsCustomResource, which it creates and owns. */
function acknowledgeCustomResourceFunction(scope: Construct): void {
  const stack = Stack.of(scope);
  const fn = stack.node.tryFindChild(`AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
  if (!fn) return;
  Validations.of(fn).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The CDK-owned custom resource function writes its own logs with the basic execution role.',
    },
    { id: 'AwsSolutions-L1', reason: 'The CDK pins the custom resource function runtime with the aws-cdk-lib version.' },
  );
}

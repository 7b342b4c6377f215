import { App, type CfnElement, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { giveFunctionsLogGroups } from '../../infra/constructs/helper-function-logs';
import { BureauStack } from '../../infra/stack';
import { TEST_WEB_ACL } from '../support/web-acl';

interface Resource {
  Type: string;
  Properties: Record<string, unknown> & { LoggingConfig?: { LogGroup?: unknown; LogFormat?: string } };
  DeletionPolicy?: string;
}

/** Each function's log group, as the template names it, and its retention and deletion policy. */
function logGroupsOfFunctions(stack: Stack) {
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  return Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
    .map(([id, fn]) => {
      const reference = fn.Properties.LoggingConfig?.LogGroup as { Ref?: string } | undefined;
      const logGroup = reference?.Ref ? resources[reference.Ref] : undefined;
      return {
        id,
        format: fn.Properties.LoggingConfig?.LogFormat,
        logGroupId: reference?.Ref,
        logGroupType: logGroup?.Type,
        retention: logGroup?.Properties.RetentionInDays,
        deletion: logGroup?.DeletionPolicy,
      };
    });
}

describe('giveFunctionsLogGroups', () => {
  it("gives the CDK's own functions in a BureauStack log groups with a retention, leaves each service function its own, and passes cdk-nag", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new BureauStack(app, 'Test', { edge: { webAclArn: TEST_WEB_ACL } });
    giveFunctionsLogGroups(stack, { retention: RetentionDays.TWO_WEEKS });

    const functions = logGroupsOfFunctions(stack);

    const own = new Set(
      [...stack.functions.values(), ...stack.registerImport.functions.values(), ...stack.accountsImport.functions.values()].map(
        (fn) => fn.node.id,
      ),
    );
    const cdkFunctions = functions.filter((fn) => ![...own].some((id) => fn.id.startsWith(id)));
    // The workspace files' copier and the buckets' emptier at least.
    expect(cdkFunctions.length).toBeGreaterThanOrEqual(2);
    for (const fn of functions) {
      expect(fn.logGroupType, fn.id).toBe('AWS::Logs::LogGroup');
      expect(fn.retention, fn.id).toEqual(expect.any(Number));
    }
    for (const fn of cdkFunctions) {
      expect(fn.retention, fn.id).toBe(14);
      expect(fn.deletion, fn.id).toBe('Delete');
    }
    const token = stack.functions.get('token');
    expect(functions.find((fn) => fn.logGroupId === stack.getLogicalId(token?.logGroup.node.defaultChild as CfnElement))).toMatchObject({
      format: 'JSON',
      retention: 30,
    });
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('reaches every stack of an app, and functions declared as an L2 function or as a plain custom resource provider alike', () => {
    const app = new App();
    const stack = new Stack(app, 'Other', { env: { account: '123456789012', region: 'us-east-1' } });
    new Bucket(stack, 'Emptied', { removalPolicy: RemovalPolicy.DESTROY, autoDeleteObjects: true });
    new AwsCustomResource(stack, 'Reads', {
      onUpdate: {
        service: 'SSM',
        action: 'getParameter',
        parameters: { Name: '/some/parameter' },
        physicalResourceId: PhysicalResourceId.of('parameter'),
      },
      policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: AwsCustomResourcePolicy.ANY_RESOURCE }),
      installLatestAwsSdk: false,
    });
    giveFunctionsLogGroups(app, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.RETAIN });

    const functions = logGroupsOfFunctions(stack);

    expect(functions).toHaveLength(2);
    for (const fn of functions) expect(fn, fn.id).toMatchObject({ logGroupType: 'AWS::Logs::LogGroup', retention: 30, deletion: 'Retain' });
  });
});

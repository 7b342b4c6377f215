import { AspectPriority, Aspects, CfnResource, type IAspect, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';

export interface FunctionLogGroupsProps {
  /** How long the functions' logs are kept. */
  readonly retention: RetentionDays;
  /**
   * What `cdk destroy` does with the log groups made here. DESTROY unless given: they hold the
   * deployment machinery's own logs (copying files, emptying buckets, reading parameters), which no
   * one reads once the stack is gone.
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * Gives every Lambda function that names no log group of its own a log group with a retention, and
 * points the function at it. The CDK adds functions of its own to a stack (BucketDeployment's
 * handler, the autoDeleteObjects and cross-region reference providers, AwsCustomResource's function,
 * the log-retention function): left alone, each writes to /aws/lambda/<name>, which Lambda creates on
 * the first invocation with no retention and which outlives the stack, kept and paid for forever.
 * Every such function's role holds AWSLambdaBasicExecutionRole, whose log rights span every log
 * group, so pointing it elsewhere needs no new grant.
 */
export class FunctionLogGroups implements IAspect {
  constructor(private readonly props: FunctionLogGroupsProps) {}

  visit(node: IConstruct): void {
    if (!CfnResource.isCfnResource(node) || node.cfnResourceType !== 'AWS::Lambda::Function') return;
    if (namesLogGroup(node)) return;
    const parent = node.node.scope;
    if (!parent) return;
    const logGroup = new LogGroup(parent, `${node.node.id}Logs`, {
      retention: this.props.retention,
      removalPolicy: this.props.removalPolicy ?? RemovalPolicy.DESTROY,
    });
    if (node instanceof CfnFunction) {
      const current = Stack.of(node).resolve(node.loggingConfig) as CfnFunction.LoggingConfigProperty | undefined;
      node.loggingConfig = { ...current, logGroup: logGroup.logGroupName };
    } else {
      // The CDK's custom resource providers declare their function as a plain CfnResource.
      node.addPropertyOverride('LoggingConfig.LogGroup', logGroup.logGroupName);
    }
  }
}

/** Whether the function already writes to a log group the stack names (a BureauFunction's own, for one). */
function namesLogGroup(resource: CfnResource): boolean {
  if (resource instanceof CfnFunction) {
    const config = Stack.of(resource).resolve(resource.loggingConfig) as { logGroup?: unknown } | undefined;
    return config?.logGroup !== undefined;
  }
  const properties = (resource as unknown as { cfnProperties: { LoggingConfig?: { LogGroup?: unknown } } }).cfnProperties;
  return properties.LoggingConfig?.LogGroup !== undefined;
}

/**
 * Applies FunctionLogGroups to a stack, or to every stack of an app. Call it before synthesis; the
 * log groups are made as the app is synthesized, after every construct has added its functions.
 */
export function giveFunctionsLogGroups(scope: IConstruct, props: FunctionLogGroupsProps): void {
  Aspects.of(scope).add(new FunctionLogGroups(props), { priority: AspectPriority.MUTATING });
}

import { Arn, ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnDelivery, CfnDeliveryDestination, CfnDeliverySource, LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface EdgeAccessLogsProps {
  readonly distributionId: string;
  /** Names the log group and the delivery, so two stages in one account never share them. */
  readonly serviceStackName: string;
  readonly retention: RetentionDays;
}

/**
 * The access log that names each caller: CloudFront's standard log (v2), one JSON line per request
 * with the viewer's address (`c-ip`). The HTTP API's own access log only ever sees CloudFront's
 * addresses. Left out on purpose: cookies (the workspace session), the query string and the
 * referrer, which may carry what a client searched for; the path, status and timing are enough to
 * find a caller and what they did.
 */
export const ACCESS_LOG_FIELDS = [
  'date',
  'time',
  'c-ip',
  'x-forwarded-for',
  'c-country',
  'cs-method',
  'x-host-header',
  'cs-uri-stem',
  'sc-status',
  'sc-bytes',
  'time-taken',
  'x-edge-request-id',
  'x-edge-result-type',
  'x-edge-detailed-result-type',
  'x-edge-location',
  'cs-protocol',
  'cs-protocol-version',
  'ssl-protocol',
  'cs(User-Agent)',
] as const;

/** CloudFront delivers its logs to CloudWatch Logs in us-east-1 only: this lives in the edge monitoring stack. */
export class EdgeAccessLogs extends Construct {
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: EdgeAccessLogsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const name = `${props.serviceStackName}-cloudfront`;
    // Under /aws/vendedlogs/ so the delivery's resource policy stays small however many log groups it serves.
    this.logGroup = new LogGroup(this, 'LogGroup', {
      logGroupName: `/aws/vendedlogs/bureau/${props.serviceStackName}/cloudfront`,
      retention: props.retention,
      // Who called, from where: kept after the stack is gone, like the API's access log (docs/deploy.md, "Tear down").
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.logGroup.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('delivery.logs.amazonaws.com')],
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`${this.logGroup.logGroupArn}`],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': Arn.format({ service: 'logs', resource: '*', arnFormat: ArnFormat.NO_RESOURCE_NAME }, stack) },
        },
      }),
    );
    const source = new CfnDeliverySource(this, 'Source', {
      name,
      logType: 'ACCESS_LOGS',
      // CloudFront is global: its ARNs have no region.
      resourceArn: Arn.format({ service: 'cloudfront', region: '', resource: 'distribution', resourceName: props.distributionId }, stack),
    });
    const destination = new CfnDeliveryDestination(this, 'Destination', {
      name,
      destinationResourceArn: this.logGroup.logGroupArn,
      outputFormat: 'json',
    });
    const delivery = new CfnDelivery(this, 'Delivery', {
      deliverySourceName: source.name,
      deliveryDestinationArn: destination.attrArn,
      recordFields: [...ACCESS_LOG_FIELDS],
    });
    delivery.node.addDependency(source);
  }
}

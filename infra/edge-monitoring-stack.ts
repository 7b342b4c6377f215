import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { Alarms } from './constructs/alarms';
import { EdgeAccessLogs } from './constructs/edge-access-logs';
import { edgeParameterNames } from './constructs/edge-parameters';
import { type AlarmDestinations, EDGE_REGION, topicsIn } from './stage-settings';

export interface BureauEdgeMonitoringStackProps extends StackProps {
  /** The service stack's name: it names the parameter the distribution's id is read from. */
  readonly serviceStackName: string;
  /** The web ACL's name: its metrics' dimension. */
  readonly webAclName: string;
  readonly alarms: AlarmDestinations;
  readonly accessLogRetention: RetentionDays;
}

/**
 * What watches the edge, in us-east-1 because CloudFront and a CloudFront web ACL publish their
 * metrics and deliver their logs there only: the distribution's 5xx rate and the firewall's blocked
 * requests, with topics of their own, one for pages and one for tickets (an alarm notifies topics of its region
 * only), and the access
 * log that records each caller's own address. It needs the distribution, so `cdk deploy --all`
 * deploys it last, reading the distribution's id from the parameter the service stack wrote.
 */
export class BureauEdgeMonitoringStack extends Stack {
  readonly alarms: Alarms;
  readonly accessLogs: EdgeAccessLogs;

  constructor(scope: Construct, id: string, props: BureauEdgeMonitoringStackProps) {
    super(scope, id, {
      description: "Bureau: the edge's alarms and the access log of every caller",
      ...props,
      env: { ...props.env, region: EDGE_REGION },
    });
    const distributionId = StringParameter.valueForStringParameter(this, edgeParameterNames(props.serviceStackName).distributionId);
    this.alarms = new Alarms(this, 'Alarms', { emails: props.alarms.emails, topicArns: topicsIn(props.alarms, EDGE_REGION) });
    this.alarms.watchDistribution(distributionId);
    this.alarms.watchFirewall(props.webAclName);
    this.alarms.raisePages();
    this.accessLogs = new EdgeAccessLogs(this, 'AccessLogs', {
      distributionId,
      serviceStackName: props.serviceStackName,
      retention: props.accessLogRetention,
    });
    new CfnOutput(this, 'EdgeAlarmTopicArn', {
      value: this.alarms.paging.topicArn,
      description: "The edge's pages (CloudFront failing) publish here, in us-east-1",
    });
    new CfnOutput(this, 'EdgeTicketTopicArn', {
      value: this.alarms.tickets.topicArn,
      description: "The edge's tickets (AWS WAF blocking more than usual) publish here, in us-east-1",
    });
    new CfnOutput(this, 'EdgeAccessLogGroup', {
      value: this.accessLogs.logGroup.logGroupName,
      description: "CloudFront's access log in us-east-1: every request with the caller's own address (c-ip)",
    });
  }
}

import type { App } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { edgeParameterNames } from './constructs/edge-parameters';
import { giveFunctionsLogGroups } from './constructs/helper-function-logs';
import { BureauEdgeMonitoringStack } from './edge-monitoring-stack';
import { BureauEdgeStack } from './edge-stack';
import { BureauStack } from './stack';
import type { StageSettings } from './stage-settings';

export interface BureauStage {
  /** us-east-1: the web ACL and the domain's certificate, deployed first. */
  readonly edge: BureauEdgeStack;
  /** The stage's region: the service. */
  readonly service: BureauStack;
  /** us-east-1: the edge's alarms and access log, deployed last. */
  readonly monitoring: BureauEdgeMonitoringStack;
}

/**
 * A stage's three stacks, in the order `cdk deploy --all` deploys them. They hand each other values
 * through SSM parameters read at deploy time, never CloudFormation exports, so that any of them,
 * the certificate above all, can change without the others holding it in place.
 */
export function buildStage(app: App, settings: StageSettings, account?: string): BureauStage {
  const edge = new BureauEdgeStack(app, `${settings.stackName}-edge`, {
    env: { account },
    edge: settings.edge,
    logRetention: settings.accessLogRetentionDays as RetentionDays,
    serviceStackName: settings.stackName,
  });
  const service = new BureauStack(app, settings.stackName, {
    env: { account, region: settings.region },
    settings,
    edge: {
      parameters: edgeParameterNames(settings.stackName),
      webAclName: edge.firewall.name,
      certificateFromEdge: edge.certificate !== undefined,
    },
  });
  service.addStackDependency(edge, 'It reads the web ACL and certificate parameters the edge stack writes');
  const monitoring = new BureauEdgeMonitoringStack(app, `${settings.stackName}-edge-monitoring`, {
    env: { account },
    serviceStackName: settings.stackName,
    webAclName: edge.firewall.name,
    alarms: settings.alarms,
    accessLogRetention: settings.accessLogRetentionDays as RetentionDays,
  });
  monitoring.addStackDependency(service, 'It reads the distribution parameter the service stack writes');
  // The functions the CDK adds to each stack (custom resources, file copying) keep their logs no longer than ours.
  for (const stack of [edge, service, monitoring]) {
    giveFunctionsLogGroups(stack, { retention: settings.functionLogRetentionDays as RetentionDays });
  }
  return { edge, service, monitoring };
}

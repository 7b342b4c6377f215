import { ArnFormat, type Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { payloadTooLarge } from '../../shared/http/body-limit';
import { HttpError } from '../../shared/http/errors';
import { problem } from '../../shared/http/responses';
import { functions } from '../catalogue';

/** The routes that check a password or passkey: the catalogue gives them a tighter gateway throttle. */
const SIGN_IN_PATHS = functions.flatMap((fn) => fn.routes.filter((route) => route.throttle).map((route) => route.path));

export interface EdgeFirewallProps {
  /** Requests one address may make in any 5 minutes. */
  readonly requestsPerAddressPer5Minutes: number;
  /** Sign-in attempts one address may make in any 5 minutes. */
  readonly signInsPerAddressPer5Minutes: number;
  /** Blocked and counted requests are logged this long. */
  readonly logRetention: RetentionDays;
}

/** The answers AWS WAF gives, in the API's own problem format, so a client parses a block like any other error. */
export const EDGE_RESPONSES = {
  rate_limited: problem(
    new HttpError(429, 'rate_limited', 'Too many requests from your address in the last 5 minutes. Slow down and retry in a minute.'),
  ),
  // AWS's common rule set blocks bodies over 8 KB, the functions' own limit: both answer alike.
  payload_too_large: problem(payloadTooLarge()),
} as const;

type ResponseKey = keyof typeof EDGE_RESPONSES;

/** Each rule's CloudWatch metric is named after the web ACL, so two stages' rules never share one. */
const RULE_METRICS = {
  SignInsPerAddress: 'sign-ins-per-address',
  RequestsPerAddress: 'requests-per-address',
  AWSManagedRulesAmazonIpReputationList: 'AWSManagedRulesAmazonIpReputationList',
  AWSManagedRulesKnownBadInputsRuleSet: 'AWSManagedRulesKnownBadInputsRuleSet',
  AWSManagedRulesCommonRuleSet: 'AWSManagedRulesCommonRuleSet',
} as const;

/**
 * Requests the web ACL blocked, per rule, for a dashboard in any region: AWS WAF publishes a
 * CloudFront web ACL's metrics in us-east-1 only.
 */
export function blockedRequestMetrics(webAclName: string, period: Duration): Metric[] {
  return Object.entries(RULE_METRICS).map(
    ([rule, metric]) =>
      new Metric({
        namespace: 'AWS/WAFV2',
        metricName: 'BlockedRequests',
        dimensionsMap: { WebACL: webAclName, Rule: `${webAclName}-${metric}` },
        region: 'us-east-1',
        statistic: 'Sum',
        period,
        label: rule,
      }),
  );
}

/**
 * The AWS WAF web ACL in front of CloudFront: AWS's managed rules for common exploits, known bad
 * inputs and addresses with a bad reputation, a rate limit per address over all requests and a
 * tighter one over sign-ins. Rate limits and oversized bodies are answered in the API's JSON error
 * format (other managed-rule blocks get WAF's plain 403), and only blocked or counted requests are
 * logged, without credentials. A CloudFront web ACL lives in us-east-1, so this construct must be
 * in a stack there.
 */
export class EdgeFirewall extends Construct {
  readonly webAcl: CfnWebACL;
  readonly logs: LogGroup;
  /** The web ACL's name: its metrics' WebACL dimension. */
  readonly name: string;

  constructor(scope: Construct, id: string, props: EdgeFirewallProps) {
    super(scope, id);
    this.name = Stack.of(this).stackName.replace(/[^\w-]/g, '');
    const visibility = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${this.name}-${name}`,
    });
    const block = (key: ResponseKey) => ({
      block: { customResponse: { responseCode: EDGE_RESPONSES[key].status, customResponseBodyKey: key } },
    });
    const managed = (priority: number, name: string, ruleActionOverrides?: CfnWebACL.RuleActionOverrideProperty[]) => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name, ...(ruleActionOverrides ? { ruleActionOverrides } : {}) } },
      visibilityConfig: visibility(name),
    });
    const pathIs = (path: string) => ({
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        positionalConstraint: 'EXACTLY',
        searchString: path,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: this.name,
      scope: 'CLOUDFRONT',
      description: 'Bureau: managed rule sets and rate limits in front of the API and the workspace',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('all'),
      customResponseBodies: Object.fromEntries(
        Object.entries(EDGE_RESPONSES).map(([key, response]) => [
          key,
          { contentType: 'APPLICATION_JSON', content: JSON.stringify(response.body) },
        ]),
      ),
      rules: [
        // Sign-ins first: a password guesser is stopped long before the general limit would notice.
        {
          name: 'SignInsPerAddress',
          priority: 0,
          action: block('rate_limited'),
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              evaluationWindowSec: 300,
              limit: props.signInsPerAddressPer5Minutes,
              scopeDownStatement: { orStatement: { statements: SIGN_IN_PATHS.map(pathIs) } },
            },
          },
          visibilityConfig: visibility(RULE_METRICS.SignInsPerAddress),
        },
        {
          name: 'RequestsPerAddress',
          priority: 1,
          action: block('rate_limited'),
          statement: {
            rateBasedStatement: { aggregateKeyType: 'IP', evaluationWindowSec: 300, limit: props.requestsPerAddressPer5Minutes },
          },
          visibilityConfig: visibility(RULE_METRICS.RequestsPerAddress),
        },
        managed(2, 'AWSManagedRulesAmazonIpReputationList'),
        managed(3, 'AWSManagedRulesKnownBadInputsRuleSet'),
        // Its body-size rule blocks what the functions would refuse anyway: answer it as they do, with 413.
        managed(4, 'AWSManagedRulesCommonRuleSet', [{ name: 'SizeRestrictions_BODY', actionToUse: block('payload_too_large') }]),
      ],
    });
    // AWS WAF requires the aws-waf-logs- prefix for a log group it writes to.
    this.logs = new LogGroup(this, 'Logs', {
      logGroupName: `aws-waf-logs-${this.name}`,
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      // AWS WAF wants the group's ARN without the ':*' of the CloudFormation attribute.
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: this.logs.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      // Allowed requests are already in the API's access log; the firewall logs what it stopped or would have.
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [
          {
            Behavior: 'KEEP',
            Requirement: 'MEETS_ANY',
            Conditions: [{ ActionCondition: { Action: 'BLOCK' } }, { ActionCondition: { Action: 'COUNT' } }],
          },
        ],
      },
      redactedFields: [{ singleHeader: { Name: 'authorization' } }, { singleHeader: { Name: 'cookie' } }],
    });
  }
}

import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { buildStage } from '../../infra/bureau-app';
import { functions as catalogue } from '../../infra/catalogue';
import { EDGE_RESPONSES } from '../../infra/constructs/edge-firewall';
import { edgeParameterNames } from '../../infra/constructs/edge-parameters';
import { BureauEdgeStack } from '../../infra/edge-stack';
import { type EdgeSettings, stageSettings } from '../../infra/stage-settings';
import { MAX_REQUEST_BODY_BYTES } from '../../shared/http/body-limit';
import { EDGE_DNS_ELSEWHERE, EDGE_IN_ROUTE_53, EDGE_WITHOUT_DOMAIN } from '../support/stages';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

function synthesize(edge: EdgeSettings = EDGE_WITHOUT_DOMAIN) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BureauEdgeStack(app, 'Edge', { edge, logRetention: 90, serviceStackName: 'Bureau-test' });
  return { app, stack, template: Template.fromStack(stack) };
}

describe('BureauEdgeStack', () => {
  it('lives in us-east-1, where CloudFront reads web ACLs and certificates', () => {
    expect(synthesize().stack.region).toBe('us-east-1');
  });

  it('puts the managed rule sets and both rate limits in a CloudFront web ACL that allows the rest', () => {
    const { template } = synthesize();
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0] as { Properties: Loose };
    const rules = Object.fromEntries(acl.Properties.Rules.map((rule: Loose) => [rule.Name, rule]));

    expect(acl.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    for (const name of ['AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet', 'AWSManagedRulesAmazonIpReputationList']) {
      expect(rules[name]?.Statement.ManagedRuleGroupStatement, name).toMatchObject({ VendorName: 'AWS', Name: name });
      expect(rules[name]?.OverrideAction, name).toEqual({ None: {} });
    }
    expect(rules.RequestsPerAddress.Statement.RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      EvaluationWindowSec: 300,
      Limit: 3000,
    });
    // The sign-in limit covers exactly the routes the catalogue marks as costly sign-ins.
    const signIn = rules.SignInsPerAddress.Statement.RateBasedStatement;
    expect(signIn).toMatchObject({ AggregateKeyType: 'IP', EvaluationWindowSec: 300, Limit: 100 });
    const signInPaths = catalogue.flatMap((fn) => fn.routes.filter((route) => route.throttle).map((route) => route.path));
    expect(signInPaths.length).toBeGreaterThan(0);
    expect(signIn.ScopeDownStatement.OrStatement.Statements.map((s: Loose) => s.ByteMatchStatement.SearchString).sort()).toEqual(
      [...signInPaths].sort(),
    );
    for (const statement of signIn.ScopeDownStatement.OrStatement.Statements) {
      expect(statement.ByteMatchStatement).toMatchObject({ FieldToMatch: { UriPath: {} }, PositionalConstraint: 'EXACTLY' });
    }
    // Every rule's requests are counted in CloudWatch, each under its own name.
    const metricNames = acl.Properties.Rules.map((rule: Loose) => rule.VisibilityConfig.MetricName);
    expect(new Set(metricNames).size).toBe(metricNames.length);
  });

  it('answers rate limits with 429 and oversized bodies with 413, in the API’s JSON error format', () => {
    const { template } = synthesize();
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0] as { Properties: Loose };
    const rules = Object.fromEntries(acl.Properties.Rules.map((rule: Loose) => [rule.Name, rule]));
    const bodies = acl.Properties.CustomResponseBodies;

    for (const name of ['RequestsPerAddress', 'SignInsPerAddress']) {
      expect(rules[name].Action.Block.CustomResponse).toEqual({ ResponseCode: 429, CustomResponseBodyKey: 'rate_limited' });
    }
    expect(rules.AWSManagedRulesCommonRuleSet.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      {
        Name: 'SizeRestrictions_BODY',
        ActionToUse: { Block: { CustomResponse: { ResponseCode: 413, CustomResponseBodyKey: 'payload_too_large' } } },
      },
    ]);
    for (const [key, response] of Object.entries(EDGE_RESPONSES)) {
      expect(bodies[key].ContentType).toBe('APPLICATION_JSON');
      expect(JSON.parse(bodies[key].Content)).toMatchObject({ status: response.status, error: key, type: expect.stringContaining(key) });
    }
    expect(JSON.parse(bodies.payload_too_large.Content).detail).toContain(String(MAX_REQUEST_BODY_BYTES));
  });

  it('logs only what it blocked or counted, without credentials, to a retained aws-waf-logs- group', () => {
    const { template, stack } = synthesize();
    const logging = Object.values(template.findResources('AWS::WAFv2::LoggingConfiguration'))[0] as { Properties: Loose };
    const group = Object.entries(template.findResources('AWS::Logs::LogGroup'))[0] as [string, { Properties: Loose }];

    expect(group[1].Properties).toMatchObject({ LogGroupName: `aws-waf-logs-${stack.stackName}`, RetentionInDays: 90 });
    expect(logging.Properties.ResourceArn).toEqual({ 'Fn::GetAtt': [stack.getLogicalId(stack.firewall.webAcl), 'Arn'] });
    expect(JSON.stringify(logging.Properties.LogDestinationConfigs)).toContain(`:log-group:",{"Ref":"${group[0]}"}`);
    expect(JSON.stringify(logging.Properties.LogDestinationConfigs)).not.toContain(':*');
    expect(logging.Properties.LoggingFilter).toMatchObject({ DefaultBehavior: 'DROP' });
    expect(logging.Properties.RedactedFields).toEqual([{ SingleHeader: { Name: 'authorization' } }, { SingleHeader: { Name: 'cookie' } }]);
  });

  it('makes a DNS-validated certificate only for a domain whose zone is in Route 53', () => {
    expect(synthesize().template.findResources('AWS::CertificateManager::Certificate')).toEqual({});
    const withCertificate = synthesize(EDGE_DNS_ELSEWHERE);
    expect(withCertificate.template.findResources('AWS::CertificateManager::Certificate')).toEqual({});

    const inRoute53 = synthesize(EDGE_IN_ROUTE_53);
    inRoute53.template.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: 'api.bureau.example',
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: 'api.bureau.example', HostedZoneId: 'Z0123456789' }],
    });
  });

  it('passes cdk-nag, and hands the service stack in another region the web ACL and the certificate through SSM parameters', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const { edge, service } = buildStage(app, {
      ...stageSettings('dev'),
      stackName: 'Service',
      region: 'eu-west-2',
      edge: EDGE_IN_ROUTE_53,
    });

    const findings = new AwsSolutionsChecks().validateScope(edge).violations.map((violation) => violation.ruleName);
    const serviceTemplate = Template.fromStack(service);
    const distribution = Object.values(serviceTemplate.findResources('AWS::CloudFront::Distribution'))[0] as { Properties: Loose };
    const readers = Object.values(serviceTemplate.findResources('Custom::AWS')).map((reader) => JSON.stringify(reader.Properties));
    const names = edgeParameterNames('Service');

    expect(findings).toEqual([]);
    Template.fromStack(edge).hasResourceProperties('AWS::SSM::Parameter', {
      Name: names.webAclArn,
      Value: { 'Fn::GetAtt': Match.anyValue() },
    });
    Template.fromStack(edge).hasResourceProperties('AWS::SSM::Parameter', { Name: names.certificateArn, Value: { Ref: Match.anyValue() } });
    // Read at deploy time from us-east-1 by the service stack's custom resources, not through exports.
    expect(JSON.stringify(distribution.Properties.DistributionConfig.WebACLId)).toContain('Parameter.Value');
    expect(JSON.stringify(distribution.Properties.DistributionConfig.ViewerCertificate.AcmCertificateArn)).toContain('Parameter.Value');
    expect(readers.some((reader) => reader.includes(names.webAclArn) && reader.includes('us-east-1'))).toBe(true);
    expect(readers.some((reader) => reader.includes(names.certificateArn) && reader.includes('us-east-1'))).toBe(true);
    expect(Stack.of(service).region).toBe('eu-west-2');
    // The service's dashboard charts the firewall's blocks from us-east-1, where AWS WAF publishes them.
    const dashboard = JSON.stringify(Object.values(serviceTemplate.findResources('AWS::CloudWatch::Dashboard'))[0]);
    expect(dashboard).toContain('Firewall: blocked requests by rule');
    expect(dashboard).toContain(
      `\\"AWS/WAFV2\\",\\"BlockedRequests\\",\\"Rule\\",\\"${edge.firewall.name}-requests-per-address\\",\\"WebACL\\",\\"${edge.firewall.name}\\"`,
    );
    expect(dashboard).toContain('\\"region\\":\\"us-east-1\\"');
  });
});

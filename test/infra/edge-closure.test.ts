import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { outputIds } from '../../infra/constructs/outputs';
import { BureauStack } from '../../infra/stack';
import type { EdgeSettings } from '../../infra/stage-settings';
import { ORIGIN_VERIFY_HEADER } from '../../shared/http/origin-guard';
import { EDGE_DNS_ELSEWHERE, EDGE_IN_ROUTE_53, EDGE_WITHOUT_DOMAIN } from '../support/stages';
import { TEST_WEB_ACL } from '../support/web-acl';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

const REGION = 'eu-west-2';
/** Any us-east-1 certificate: the service stack sees only its ARN, wherever the edge got it. */
const EDGE_CERTIFICATE = EDGE_DNS_ELSEWHERE.certificateArn as string;

function synthesize(edge: EdgeSettings) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  // The us-east-1 certificate as the edge stack hands it over; only its ARN reaches the template,
  // so its stack stays out of the app synthesized here (an empty stack fails template validation).
  const certificate = edge.domainName
    ? Certificate.fromCertificateArn(new Stack(new App(), 'Edge', { env: { region: 'us-east-1' } }), 'Certificate', EDGE_CERTIFICATE)
    : undefined;
  const stack = new BureauStack(app, 'Test', {
    env: { region: REGION },
    settings: { edge },
    edge: { webAclArn: TEST_WEB_ACL, ...(certificate ? { certificate } : {}) },
  });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, Loose>;
  const only = (type: string): [string, Loose] => {
    const found = Object.entries(resources).filter(([, resource]) => resource.Type === type);
    expect(found, type).toHaveLength(1);
    return found[0] as [string, Loose];
  };
  const config = only('AWS::CloudFront::Distribution')[1].Properties.DistributionConfig;
  const apiOrigins = config.Origins.filter((origin: Loose) => origin.CustomOriginConfig);
  const behaviours = Object.fromEntries(config.CacheBehaviors.map((behaviour: Loose) => [behaviour.PathPattern, behaviour]));
  return {
    stack,
    template,
    resources,
    only,
    config,
    apiOrigins,
    behaviours,
    output: template.toJSON().Outputs[outputIds.executeApiAddress],
  };
}

/** The text of an output value that is a plain string or an Fn::Join of strings and references. */
const text = (value: Loose): string =>
  typeof value === 'string' ? value : value['Fn::Join'][1].map((part: Loose) => (typeof part === 'string' ? part : '<ref>')).join('');

describe('the execute-api address', () => {
  for (const [stage, edge] of [
    ['no domain', EDGE_WITHOUT_DOMAIN],
    ['a domain whose DNS is elsewhere', EDGE_DNS_ELSEWHERE],
  ] as const) {
    it(`stays open for a stage with ${stage}, and the stack says so and what it costs`, () => {
      const synth = synthesize(edge);
      const [apiId, api] = synth.only('AWS::ApiGatewayV2::Api');

      expect(api.Properties.DisableExecuteApiEndpoint).not.toBe(true);
      expect(synth.apiOrigins).toHaveLength(1);
      // The host of https://<id>.execute-api.<region>.amazonaws.com.
      expect(synth.apiOrigins[0].DomainName).toEqual({
        'Fn::Select': [2, { 'Fn::Split': ['/', { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] }] }],
      });
      for (const type of ['AWS::ApiGatewayV2::DomainName', 'AWS::ApiGatewayV2::ApiMapping', 'AWS::CertificateManager::Certificate']) {
        expect(synth.template.findResources(type), type).toEqual({});
      }

      const warning = text(synth.output.Value);
      expect(synth.output.Value['Fn::Join'][1][1]).toEqual({ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] });
      expect(warning).toMatch(/^Open: <ref> takes requests/);
      for (const cost of [
        'never meet AWS WAF',
        'in about a millisecond',
        'an API Gateway request and a Lambda run',
        '100 requests a second, 200 at once',
      ]) {
        expect(warning).toContain(cost);
      }
      expect(warning).toContain('edge.hostedZone');
    });
  }

  it('closes for a stage whose domain is in Route 53, CloudFront reaching the API by a private custom domain', () => {
    const synth = synthesize(EDGE_IN_ROUTE_53);
    const [apiId, api] = synth.only('AWS::ApiGatewayV2::Api');
    const [certificateId, certificate] = synth.only('AWS::CertificateManager::Certificate');
    const [domainId, domain] = synth.only('AWS::ApiGatewayV2::DomainName');
    const [mappingId, mapping] = synth.only('AWS::ApiGatewayV2::ApiMapping');
    const [stageId, stage] = synth.only('AWS::ApiGatewayV2::Stage');
    const privateName = { 'Fn::Join': ['', [{ Ref: apiId }, '.api.bureau.example']] };

    expect(api.Properties.DisableExecuteApiEndpoint).toBe(true);
    // A wildcard for the public domain in the stage's own region, where API Gateway reads certificates.
    expect(synth.stack.region).toBe(REGION);
    expect(certificate.Properties).toEqual({
      DomainName: '*.api.bureau.example',
      DomainValidationOptions: [{ DomainName: '*.api.bureau.example', HostedZoneId: 'Z0123456789' }],
      ValidationMethod: 'DNS',
      Tags: expect.any(Array),
    });
    expect(domain.Properties).toEqual({
      DomainName: privateName,
      DomainNameConfigurations: [
        { CertificateArn: { Ref: certificateId }, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2', IpAddressType: 'dualstack' },
      ],
    });
    expect(mapping.Properties).toEqual({ ApiId: { Ref: apiId }, DomainName: { Ref: domainId }, Stage: stage.Properties.StageName });
    expect(mapping.DependsOn).toContain(stageId);

    const records = Object.entries(synth.template.findResources('AWS::Route53::RecordSet')).filter(
      ([, record]) =>
        JSON.stringify(record.Properties.Name) === JSON.stringify({ 'Fn::Join': ['', [{ Ref: apiId }, '.api.bureau.example.']] }),
    );
    expect(records.map(([, record]) => record.Properties.Type).sort()).toEqual(['A', 'AAAA']);
    for (const [, record] of records) {
      expect(record.Properties).toMatchObject({
        HostedZoneId: 'Z0123456789',
        AliasTarget: {
          DNSName: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
          HostedZoneId: { 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] },
        },
      });
    }

    // Every API path goes to the private name, and Host is that name, which the custom domain routes by.
    expect(synth.apiOrigins).toHaveLength(1);
    const [origin] = synth.apiOrigins;
    expect(origin.DomainName).toEqual(privateName);
    expect(origin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    expect(origin.OriginCustomHeaders.map((header: Loose) => header.HeaderName)).toEqual([ORIGIN_VERIFY_HEADER]);
    for (const path of ['/v1/*', '/workspace/api/*']) {
      expect(synth.behaviours[path]?.TargetOriginId, path).toBe(origin.Id);
      expect(synth.behaviours[path]?.OriginRequestPolicyId, path).toBe(
        OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
      );
    }
    expect(synth.behaviours['/v1/openapi.json']?.TargetOriginId).toBe(origin.Id);
    expect(synth.behaviours['/v1/openapi.json']?.OriginRequestPolicyId).toBeUndefined();
    // Nothing the stack builds or prints names the closed address.
    expect(JSON.stringify(synth.template.toJSON())).not.toContain('"ApiEndpoint"');

    // The distribution moves only once the name answers; the API closes only once its certificate is issued.
    const [, distribution] = synth.only('AWS::CloudFront::Distribution');
    expect(distribution.DependsOn).toEqual(expect.arrayContaining([mappingId, ...records.map(([id]) => id), domainId, certificateId]));
    expect(api.DependsOn).toEqual([certificateId]);

    expect(text(synth.output.Value)).toMatch(/^Closed: /);
    expect(new AwsSolutionsChecks().validateScope(synth.stack).violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('keeps the API, its stage and its routes when a stage gains a domain and loses it again', () => {
    const ids = (edge: EdgeSettings) => {
      const { stack, resources } = synthesize(edge);
      const api = stack.getLogicalId(stack.api.httpApi.node.defaultChild as CfnElement);
      return {
        api,
        kept: Object.entries(resources)
          .filter(([, resource]) =>
            ['AWS::ApiGatewayV2::Api', 'AWS::ApiGatewayV2::Stage', 'AWS::ApiGatewayV2::Route'].includes(resource.Type),
          )
          .map(([id]) => id)
          .sort(),
      };
    };
    const before = ids(EDGE_WITHOUT_DOMAIN);
    const withDomain = ids(EDGE_IN_ROUTE_53);
    const after = ids(EDGE_WITHOUT_DOMAIN);

    expect(before.kept.length).toBeGreaterThan(2);
    expect(withDomain).toEqual(before);
    expect(after).toEqual(before);
  });
});

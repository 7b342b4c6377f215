import { App, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountsImportFunctions, functions as catalogue, type FunctionSpec, registerImportFunctions } from '../../infra/catalogue';
import { lambdaRuntimeName } from '../../infra/lambda-node';
import { BureauStack, type BureauStackProps } from '../../infra/stack';
import { API_CORS } from '../../shared/http/cors';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../shared/http/origin-guard';
import { isKeyedWrite } from '../../shared/iam/actions';
import { allQueues, deliveriesQueue, fanoutQueue, streamFailuresQueue } from '../../shared/queues/queues';
import {
  allTables,
  clientsTable,
  companiesTable,
  deliveriesTable,
  eventsTable,
  type TableDefinition,
  watchesTable,
  webhooksTable,
  workspaceTable,
} from '../../shared/storage/tables';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../shared/webhooks/retry-schedule';
import { REFERENCE_CONTENT_SECURITY_POLICY, WORKSPACE_CONTENT_SECURITY_POLICY } from '../../shared/workspace/site-headers';
import { defaultServiceStack } from '../support/service-stack';
import { TEST_WEB_ACL } from '../support/web-acl';

interface Statement {
  Effect?: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const writeActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

function synthesize(props: Omit<BureauStackProps, 'edge'> & Partial<Pick<BureauStackProps, 'edge'>> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BureauStack(app, 'Test', { edge: { webAclArn: TEST_WEB_ACL }, ...props });
  return readerOf(stack, Template.fromStack(stack));
}

/** A synthesized stack with the lookups the tests below read it by. */
function readerOf(stack: BureauStack, template: Template) {
  const logicalId = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const functionId = (id: string) => logicalId(stack.functions.get(id) as IConstruct);
  const roleId = (id: string) => logicalId(stack.functions.get(id)?.executionRole as IConstruct);
  const statementsOf = (id: string): Statement[] =>
    Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId(id) }] } })).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
    );
  const environmentOf = (id: string): Record<string, unknown> =>
    template.toJSON().Resources[functionId(id)].Properties.Environment.Variables;
  return { stack, template, logicalId, functionId, roleId, statementsOf, environmentOf };
}

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

const grants = (action: string) => (statement: Statement) => asList(statement.Action).includes(action);

describe('BureauStack', () => {
  let synth: ReturnType<typeof readerOf>;
  beforeAll(() => {
    const { stack, template } = defaultServiceStack();
    synth = readerOf(stack, template);
  });

  it('builds each table from its shared definition, on demand, recoverable, encrypted and retained', () => {
    for (const definition of allTables) {
      const table = synth.stack.tables.of(definition);
      const resource = synth.template.toJSON().Resources[synth.logicalId(table)];

      expect(resource.DeletionPolicy).toBe('Retain');
      expect(resource.UpdateReplacePolicy).toBe('Retain');
      expect(resource.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
        KeySchema: [
          { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: definition.sortKey?.name, KeyType: 'RANGE' },
        ],
      });
      expect(resource.Properties.StreamSpecification).toEqual(definition.stream ? { StreamViewType: definition.stream } : undefined);
      expect(resource.Properties.TimeToLiveSpecification).toEqual(
        definition.timeToLiveAttribute ? { AttributeName: definition.timeToLiveAttribute, Enabled: true } : undefined,
      );
      expect((resource.Properties.GlobalSecondaryIndexes ?? []).map((index: { IndexName: string }) => index.IndexName)).toEqual(
        (definition.globalSecondaryIndexes ?? []).map((index) => index.indexName),
      );
    }
  });

  it('gives the watches table its by-client index with the keys swapped', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byClient',
          KeySchema: [
            { AttributeName: watchesTable.sortKey?.name, KeyType: 'HASH' },
            { AttributeName: watchesTable.partitionKey.name, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('deploys every catalogue function on Node.js 24, ARM, traced, logging JSON to its own retained log group', () => {
    expect([...synth.stack.functions.keys()]).toEqual(catalogue.map((spec) => spec.id));
    for (const spec of catalogue) {
      const fn = synth.stack.functions.get(spec.id);
      synth.template.hasResourceProperties('AWS::Lambda::Function', {
        Description: spec.description,
        // The Node.js major `npm test` also runs the suite on.
        Runtime: lambdaRuntimeName,
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Timeout: spec.timeoutSeconds ?? 10,
        Role: { 'Fn::GetAtt': [synth.roleId(spec.id), 'Arn'] },
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: synth.logicalId(fn?.logGroup as IConstruct) } },
        Environment: {
          Variables: Match.objectLike({
            POWERTOOLS_SERVICE_NAME: 'bureau',
            TOKEN_ISSUER: 'https://bureau.example',
            TOKEN_AUDIENCE: 'bureau-api',
          }),
        },
      });
      synth.template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    }
  });

  it('lets a function write only to its own log group, with no managed policy', () => {
    for (const spec of catalogue) {
      const fn = synth.stack.functions.get(spec.id);
      const logStatements = synth.statementsOf(spec.id).filter(grants('logs:PutLogEvents'));
      expect(logStatements).toEqual([
        expect.objectContaining({ Resource: { 'Fn::GetAtt': [synth.logicalId(fn?.logGroup as IConstruct), 'Arn'] } }),
      ]);
      expect(synth.template.toJSON().Resources[synth.roleId(spec.id)].Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('routes each catalogue route to its function through a payload 2.0 Lambda proxy', () => {
    const routes = synth.template.findResources('AWS::ApiGatewayV2::Route');
    const integrations = synth.template.findResources('AWS::ApiGatewayV2::Integration');
    expect(Object.keys(routes)).toHaveLength(catalogue.flatMap((spec) => spec.routes).length);

    for (const spec of catalogue) {
      for (const route of spec.routes) {
        const [routeResource] = Object.values(routes).filter((r) => r.Properties.RouteKey === `${route.method} ${route.path}`);
        expect(routeResource, `${route.method} ${route.path}`).toBeDefined();
        const integrationId = routeResource?.Properties.Target['Fn::Join'][1][1].Ref;
        expect(integrations[integrationId]?.Properties).toMatchObject({
          IntegrationType: 'AWS_PROXY',
          PayloadFormatVersion: '2.0',
          IntegrationUri: { 'Fn::GetAtt': [synth.functionId(spec.id), 'Arn'] },
        });
        expect(routeResource?.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
      }
    }
  });

  it('logs every API request as JSON and throttles the stage', () => {
    const [stage] = Object.values(synth.template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stage?.Properties.StageName).toBe('$default');
    expect(stage?.Properties.DefaultRouteSettings).toEqual({ ThrottlingBurstLimit: 200, ThrottlingRateLimit: 100 });
    expect(JSON.parse(stage?.Properties.AccessLogSettings.Format)).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      routeKey: '$context.routeKey',
      status: '$context.status',
      latency: '$context.responseLatency',
    });
  });

  it('answers CORS for any origin, never with credentials, exactly as the shared definition the local gateway plays says', () => {
    const [api] = Object.values(synth.template.findResources('AWS::ApiGatewayV2::Api'));

    expect(api?.Properties.ProtocolType).toBe('HTTP');
    expect(api?.Properties.CorsConfiguration).toEqual({
      AllowOrigins: API_CORS.allowOrigins,
      AllowMethods: API_CORS.allowMethods,
      AllowHeaders: API_CORS.allowHeaders,
      ExposeHeaders: API_CORS.exposeHeaders,
      MaxAge: API_CORS.maxAgeSeconds,
      AllowCredentials: false,
    });
    expect(API_CORS.allowHeaders).toEqual(expect.arrayContaining(['authorization', 'content-type', 'if-none-match']));
    expect(API_CORS.exposeHeaders).toEqual(expect.arrayContaining(['ratelimit', 'ratelimit-policy', 'retry-after', 'etag', 'location']));
  });

  it('has the edge add CORS to the OpenAPI document it caches, since the gateway sees no Origin for it', () => {
    const distribution = Object.values(synth.template.findResources('AWS::CloudFront::Distribution'))[0] as { Properties: Loose };
    const behaviour = distribution.Properties.DistributionConfig.CacheBehaviors.find(
      (candidate: Loose) => candidate.PathPattern === '/v1/openapi.json',
    );
    const policies = synth.template.findResources('AWS::CloudFront::ResponseHeadersPolicy');
    const cors = policies[behaviour.ResponseHeadersPolicyId.Ref]?.Properties.ResponseHeadersPolicyConfig.CorsConfig;

    expect(cors).toMatchObject({
      AccessControlAllowOrigins: { Items: ['*'] },
      AccessControlAllowMethods: { Items: ['GET', 'HEAD'] },
      AccessControlExposeHeaders: { Items: API_CORS.exposeHeaders },
      AccessControlAllowCredentials: false,
      OriginOverride: true,
    });
  });

  it('passes each granted table name in the variable its definition names', () => {
    for (const spec of catalogue) {
      const environment = synth.environmentOf(spec.id);
      for (const grant of spec.tables) {
        expect(environment[grant.table.envVar]).toEqual({ Ref: synth.logicalId(synth.stack.tables.of(grant.table)) });
      }
    }
  });

  it('confines every write of a prefix-restricted grant to partition keys with that prefix', () => {
    const restricted = catalogue.flatMap((spec) => spec.tables.filter((g) => g.writeKeyPrefixes?.length).map((grant) => ({ spec, grant })));
    expect(restricted.length).toBeGreaterThan(0);

    for (const { spec, grant } of restricted) {
      const tableArn = { 'Fn::GetAtt': [synth.logicalId(synth.stack.tables.of(grant.table)), 'Arn'] };
      const writes = synth
        .statementsOf(spec.id)
        .filter((s) => asList(s.Action).some((action) => writeActions.includes(action)))
        .filter((s) => JSON.stringify(s.Resource) === JSON.stringify(tableArn));
      expect(writes.length).toBeGreaterThan(0);
      for (const write of writes) {
        expect(write.Condition).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': grant.writeKeyPrefixes?.map((prefix) => `${prefix}*`) },
        });
        expect(asList(write.Action).sort()).toEqual(
          grant.access.actions
            .filter(isKeyedWrite)
            .map((action) => `dynamodb:${action}`)
            .sort(),
        );
      }
    }
  });

  it('gives search, profile, watches and webhooks only the data access their routes need', () => {
    const arnOf = (table: TableDefinition) => JSON.stringify({ 'Fn::GetAtt': [synth.logicalId(synth.stack.tables.of(table)), 'Arn'] });
    const actionsOn = (fn: string, table: TableDefinition) =>
      synth
        .statementsOf(fn)
        .filter((statement) => asList(statement.Resource).some((resource) => JSON.stringify(resource) === arnOf(table)))
        .filter((statement) => statement.Condition === undefined)
        .flatMap((statement) => asList(statement.Action))
        .filter((action) => action.startsWith('dynamodb:'));
    const writes = (actions: string[]) => actions.filter((action) => writeActions.includes(action));

    // Search reads companies and nothing of the watches.
    expect(actionsOn('search', companiesTable)).toContain('dynamodb:Query');
    expect(writes(actionsOn('search', companiesTable))).toEqual([]);
    expect(actionsOn('search', watchesTable)).toEqual([]);
    // Profile reads companies and records watches; it never writes a profile.
    expect(actionsOn('profile', companiesTable)).toContain('dynamodb:GetItem');
    expect(writes(actionsOn('profile', companiesTable))).toEqual([]);
    expect(actionsOn('profile', watchesTable)).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:DeleteItem']));
    // The watches list reads watches only.
    expect(writes(actionsOn('watches', watchesTable))).toEqual([]);
    expect(actionsOn('watches', companiesTable)).toEqual([]);
    // Webhooks reads and writes its subscriptions (a transaction keeps the per-client count) and touches no company data.
    expect(actionsOn('webhooks', webhooksTable)).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
    );
    for (const table of [companiesTable, watchesTable]) expect(actionsOn('webhooks', table)).toEqual([]);
    // Nor does any other request-path function see the subscriptions.
    for (const fn of ['token', 'search', 'profile', 'watches']) expect(actionsOn(fn, webhooksTable)).toEqual([]);
    // None of them writes the clients table beyond the prefix-confined rate counters.
    for (const fn of ['search', 'profile', 'watches', 'webhooks']) expect(writes(actionsOn(fn, clientsTable))).toEqual([]);
  });

  it("gives the workspace its people and sessions, the client's webhooks, and read access to what it shows, and nothing else", () => {
    const arnOf = (table: TableDefinition) => JSON.stringify({ 'Fn::GetAtt': [synth.logicalId(synth.stack.tables.of(table)), 'Arn'] });
    const actionsOn = (fn: string, table: TableDefinition) =>
      synth
        .statementsOf(fn)
        .filter((statement) => asList(statement.Resource).some((resource) => JSON.stringify(resource) === arnOf(table)))
        .flatMap((statement) => asList(statement.Action))
        .filter((action) => action.startsWith('dynamodb:'));
    const writes = (actions: string[]) => actions.filter((action) => writeActions.includes(action));

    expect(actionsOn('workspace', workspaceTable)).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem']),
    );
    expect(writes(actionsOn('workspace', webhooksTable))).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem']));
    for (const table of [clientsTable, companiesTable, deliveriesTable]) {
      expect(actionsOn('workspace', table), table.id).toContain('dynamodb:GetItem');
    }
    expect(writes(actionsOn('workspace', companiesTable))).toEqual([]);
    // A recovery claims each dead delivery and books the subscription's schedule, as the API's recover does.
    expect(writes(actionsOn('workspace', deliveriesTable))).toEqual(['dynamodb:UpdateItem']);
    // The client's rate counters, counted as the API counts them (confined to RATE# keys: grants.test.ts).
    expect(writes(actionsOn('workspace', clientsTable))).toEqual(['dynamodb:UpdateItem']);
    // A watch read by its own key (the client's), and the by-client index, which lists a client's own.
    expect(actionsOn('workspace', watchesTable)).toEqual(['dynamodb:GetItem']);
    // The events feed reads the client's events as GET /v1/events does, and writes none.
    expect(actionsOn('workspace', eventsTable)).toEqual(['dynamodb:Query']);
    // No function of the API sees people or sessions.
    for (const fn of ['token', 'search', 'profile', 'watches', 'webhooks', 'sender', 'fanout']) {
      expect(actionsOn(fn, workspaceTable), fn).toEqual([]);
    }
  });

  it('throttles the sign-in routes at the gateway more tightly than the stage', () => {
    const stage = Object.values(synth.template.findResources('AWS::ApiGatewayV2::Stage'))[0] as { Properties: Record<string, Loose> };
    const settings = stage.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;

    for (const route of ['POST /workspace/api/sign-in', 'POST /workspace/api/invitations/accept', 'POST /workspace/api/passkey-sign-in']) {
      expect(settings[route]?.ThrottlingRateLimit, route).toBeLessThan(stage.Properties.DefaultRouteSettings.ThrottlingRateLimit);
    }
  });

  it('serves the workspace and the API on one CloudFront origin, the pages under a strict CSP from a private bucket', () => {
    const distribution = Object.values(synth.template.findResources('AWS::CloudFront::Distribution'))[0] as { Properties: Loose };
    const config = distribution.Properties.DistributionConfig;
    const behaviours = Object.fromEntries(config.CacheBehaviors.map((behaviour: Loose) => [behaviour.PathPattern, behaviour]));
    const apiOrigin = config.Origins.find((origin: Loose) => origin.CustomOriginConfig);
    const siteOrigin = config.Origins.find((origin: Loose) => origin.S3OriginConfig);

    for (const path of ['/workspace/api/*', '/v1/*']) {
      expect(behaviours[path]?.TargetOriginId, path).toBe(apiOrigin.Id);
      expect(behaviours[path]?.AllowedMethods, path).toContain('POST');
      expect(behaviours[path]?.ViewerProtocolPolicy, path).toBe('https-only');
    }
    expect(apiOrigin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    // The OpenAPI document alone of the API's answers is kept at the edge, and matched before /v1/*.
    const paths = config.CacheBehaviors.map((behaviour: Loose) => behaviour.PathPattern);
    expect(paths.indexOf('/v1/openapi.json')).toBeLessThan(paths.indexOf('/v1/*'));
    expect(behaviours['/v1/openapi.json']?.TargetOriginId).toBe(apiOrigin.Id);
    expect(behaviours['/v1/openapi.json']?.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(behaviours['/v1/openapi.json']?.CachePolicyId).toBe('658327ea-f89d-4fab-a63d-7e88639e58f6');
    expect(behaviours['/v1/*']?.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(config.DefaultCacheBehavior.TargetOriginId).toBe(siteOrigin.Id);
    expect(siteOrigin.OriginAccessControlId).toBeDefined();
    synth.template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: WORKSPACE_CONTENT_SECURITY_POLICY, Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
        }),
      },
    });
    synth.template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    expect(synth.environmentOf('workspace').WORKSPACE_ORIGIN).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [synth.logicalId(synth.stack.frontDoor.distribution as IConstruct), 'DomainName'] }]],
    });
  });

  it('serves the API reference page from the bucket under its own policy, uncached on each deploy', () => {
    const distribution = Object.values(synth.template.findResources('AWS::CloudFront::Distribution'))[0] as { Properties: Loose };
    const config = distribution.Properties.DistributionConfig;
    const siteOrigin = config.Origins.find((origin: Loose) => origin.S3OriginConfig);
    const policies = synth.template.findResources('AWS::CloudFront::ResponseHeadersPolicy');
    const functions = synth.template.findResources('AWS::CloudFront::Function');
    const policyOf = (behaviour: Loose) =>
      policies[behaviour.ResponseHeadersPolicyId.Ref]?.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;

    for (const path of ['/workspace/reference', '/workspace/reference/*']) {
      const behaviour = config.CacheBehaviors.find((candidate: Loose) => candidate.PathPattern === path);
      expect(behaviour?.TargetOriginId, path).toBe(siteOrigin.Id);
      expect(behaviour.ViewerProtocolPolicy, path).toBe('redirect-to-https');
      expect(policyOf(behaviour), path).toMatchObject({
        ContentSecurityPolicy: { ContentSecurityPolicy: REFERENCE_CONTENT_SECURITY_POLICY, Override: true },
        FrameOptions: { FrameOption: 'DENY', Override: true },
        ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      });
      // Sandboxed into an opaque origin, away from the workspace's session.
      const directives = policyOf(behaviour).ContentSecurityPolicy.ContentSecurityPolicy.split('; ');
      expect(directives, path).toContain('sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox');
      expect(directives.join('; '), path).not.toMatch(/allow-same-origin|allow-forms/);
      const code = functions[behaviour.FunctionAssociations[0].FunctionARN['Fn::GetAtt'][0]]?.Properties.FunctionCode;
      expect(code, path).toContain("r.uri = '/workspace/reference/index.html'");
      expect(code, path).toContain("location: { value: '/workspace/reference/' }");
    }
    // Only the reference page allows inline styles; scripts stay files of this origin everywhere.
    expect(policyOf(config.DefaultCacheBehavior).ContentSecurityPolicy.ContentSecurityPolicy).toBe(WORKSPACE_CONTENT_SECURITY_POLICY);
    expect(REFERENCE_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(REFERENCE_CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/);
    synth.template.hasResourceProperties('Custom::CDKBucketDeployment', {
      Include: ['index.html', 'reference/index.html'],
      SystemMetadata: { 'cache-control': 'no-cache' },
      DistributionPaths: Match.arrayWith(['/workspace/reference/', '/workspace/reference/index.html']),
    });
    synth.template.hasResourceProperties('Custom::CDKBucketDeployment', {
      Exclude: ['index.html', 'reference/index.html'],
      SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
    });
  });

  it('puts the public entry behind the web ACL and has CloudFront prove it to the API with a secret header only the API functions read', () => {
    const distribution = Object.values(synth.template.findResources('AWS::CloudFront::Distribution'))[0] as { Properties: Loose };
    const config = distribution.Properties.DistributionConfig;
    const secret = { Ref: synth.logicalId(synth.stack.frontDoor.originSecret) };
    const apiOrigin = config.Origins.find((origin: Loose) => origin.CustomOriginConfig);
    const siteOrigin = config.Origins.find((origin: Loose) => origin.S3OriginConfig);

    expect(config.WebACLId).toBe(TEST_WEB_ACL);
    // The caller's address reaches the API's per-address limits in a header CloudFront sets on every API request.
    const functions = synth.template.findResources('AWS::CloudFront::Function');
    for (const path of ['/v1/*', '/workspace/api/*']) {
      const behaviour = config.CacheBehaviors.find((candidate: Loose) => candidate.PathPattern === path);
      const [association] = behaviour.FunctionAssociations;
      expect(association.EventType, path).toBe('viewer-request');
      const code = functions[association.FunctionARN['Fn::GetAtt'][0]]?.Properties.FunctionCode;
      expect(code, path).toContain(`headers['${VIEWER_ADDRESS_HEADER}'] = { value: event.viewer.ip }`);
    }
    expect(apiOrigin.OriginCustomHeaders).toEqual([
      {
        HeaderName: ORIGIN_VERIFY_HEADER,
        HeaderValue: { 'Fn::Join': ['', ['{{resolve:secretsmanager:', secret, ':SecretString:::}}']] },
      },
    ]);
    // The bucket never sees the value.
    expect(siteOrigin.OriginCustomHeaders).toBeUndefined();
    synth.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    for (const spec of catalogue) {
      const reads = synth
        .statementsOf(spec.id)
        .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(secret))
        .flatMap((statement) => asList(statement.Action));
      if (spec.routes.length > 0) {
        expect(synth.environmentOf(spec.id).ORIGIN_SECRET_ARN, spec.id).toEqual(secret);
        expect(reads, spec.id).toEqual(['secretsmanager:GetSecretValue']);
      } else {
        expect(synth.environmentOf(spec.id).ORIGIN_SECRET_ARN, spec.id).toBeUndefined();
        expect(reads, spec.id).toEqual([]);
      }
    }
    expect(config.Comment).toContain('origin secret revision 1');
    expect(synth.template.toJSON().Outputs.ApiUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [synth.logicalId(synth.stack.frontDoor.distribution as IConstruct), 'DomainName'] }]],
    });
  });

  it('serves a stage with a domain of its own on that domain, over TLS 1.2 at least, with alias records in its zone', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123';
    const edge = {
      domainName: 'api.bureau.example',
      hostedZone: { id: 'Z0123456789', name: 'bureau.example' },
      certificateArn,
      requestsPerAddressPer5Minutes: 3000,
      signInsPerAddressPer5Minutes: 100,
      originSecretRevision: 2,
    };
    const stack = new BureauStack(app, 'Domain', { settings: { edge }, edge: { webAclArn: TEST_WEB_ACL } });
    const template = Template.fromStack(stack);
    const config = (Object.values(template.findResources('AWS::CloudFront::Distribution'))[0] as { Properties: Loose }).Properties
      .DistributionConfig;

    expect(config.Aliases).toEqual(['api.bureau.example']);
    expect(config.ViewerCertificate).toMatchObject({
      AcmCertificateArn: certificateArn,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    expect(config.Comment).toContain('origin secret revision 2');
    for (const type of ['A', 'AAAA']) {
      template.hasResourceProperties('AWS::Route53::RecordSet', {
        Name: 'api.bureau.example.',
        Type: type,
        HostedZoneId: 'Z0123456789',
        AliasTarget: Match.objectLike({
          DNSName: { 'Fn::GetAtt': [stack.getLogicalId(stack.frontDoor.distribution.node.defaultChild as CfnElement), 'DomainName'] },
        }),
      });
    }
    expect(template.toJSON().Outputs.ApiUrl.Value).toBe('https://api.bureau.example');
    expect(new AwsSolutionsChecks().validateScope(stack).violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('lets only the signing and rotating functions read the signing key, and only the rotation function change it', () => {
    const secret = { Ref: synth.logicalId(synth.stack.signingKey.secret) };
    const on = (action: string) =>
      catalogue
        .filter((spec) =>
          synth.statementsOf(spec.id).some((s) => grants(action)(s) && JSON.stringify(s.Resource) === JSON.stringify(secret)),
        )
        .map((spec) => spec.id);

    expect(on('secretsmanager:GetSecretValue')).toEqual(catalogue.filter((spec) => spec.signingKey).map((spec) => spec.id));
    expect(on('secretsmanager:PutSecretValue')).toEqual(catalogue.filter((spec) => spec.signingKey === 'rotate').map((spec) => spec.id));
    expect(on('secretsmanager:GetSecretValue')).toContain('token');
    for (const spec of catalogue) {
      expect(synth.environmentOf(spec.id).SIGNING_KEY_SECRET_ID).toEqual(spec.signingKey ? secret : undefined);
    }
  });

  it('refuses the signing keys to every principal but the signing and rotating functions and the named key administrators', () => {
    const admin = 'arn:aws:iam::123456789012:role/BureauKeyAdmin';
    const fenced = synthesize({ settings: { signingKeyAdministrators: [admin] } });
    const policy = Object.values(fenced.template.findResources('AWS::SecretsManager::ResourcePolicy'))[0] as { Properties: Loose };
    const deny = policy.Properties.ResourcePolicy.Statement.find(
      (statement: Loose) => statement.Sid === 'OnlyTheSigningFunctionsAndKeyAdministrators',
    );
    const roleArn = (fn: string) => ({ 'Fn::GetAtt': [fenced.roleId(fn), 'Arn'] });

    expect(deny).toMatchObject({ Effect: 'Deny', Principal: '*' });
    expect(deny.Action).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']));
    expect(deny.Condition.StringNotEquals['aws:PrincipalArn']).toEqual([roleArn('token'), roleArn('keyRotation'), admin]);
  });

  it('lets service principals act only for this account and this secret', () => {
    const rotationInvoke = Object.values(synth.template.findResources('AWS::Lambda::Permission')).find(
      (permission) => permission.Properties.Principal === 'secretsmanager.amazonaws.com',
    );
    expect(rotationInvoke?.Properties).toMatchObject({
      SourceAccount: { Ref: 'AWS::AccountId' },
      SourceArn: { Ref: synth.logicalId(synth.stack.signingKey.secret) },
    });
    const topicKey = Object.values(synth.template.findResources('AWS::KMS::Key')).find((key) =>
      JSON.stringify(key.Properties.KeyPolicy).includes('cloudwatch.amazonaws.com'),
    );
    const cloudWatch = topicKey?.Properties.KeyPolicy.Statement.find(
      (statement: Loose) => statement.Principal?.Service === 'cloudwatch.amazonaws.com',
    );
    expect(cloudWatch.Condition).toEqual({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } });
  });

  it('acknowledges the missing gateway authorizer route by route, so a route added any other way is flagged', () => {
    const fresh = synthesize();
    const search = fresh.stack.functions.get('search') as IFunction;
    fresh.stack.api.httpApi.addRoutes({
      path: '/v1/unchecked',
      methods: [HttpMethod.GET],
      integration: new HttpLambdaIntegration('Unchecked', search),
    });

    const findings = new AwsSolutionsChecks().validateScope(fresh.stack).violations.map((violation) => violation.ruleName);

    expect(findings).toEqual(['AwsSolutions-APIG4']);
  });

  it('reserves no concurrency for any function, so the stack deploys into an account whose quota is under 100 and a reservation', () => {
    const functions = Object.entries(synth.template.findResources('AWS::Lambda::Function'));

    expect(functions.length).toBeGreaterThan(catalogue.length);
    expect(functions.filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined).map(([id]) => id)).toEqual([]);
  });

  it('seals webhook signing secrets under a KMS key of their own, rotating, kept and named by an alias, and lets each function do only its part', () => {
    const key = synth.stack.webhookSecretsKey.key;
    const arn = { 'Fn::GetAtt': [synth.logicalId(key), 'Arn'] };
    const resources = synth.template.toJSON().Resources as Record<string, { Type: string; Properties: Loose; DeletionPolicy?: string }>;
    const keyResource = resources[synth.logicalId(key)];
    const onKey = (fn: string) => synth.statementsOf(fn).filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(arn));

    expect(keyResource?.Properties.EnableKeyRotation).toBe(true);
    expect(keyResource?.DeletionPolicy).toBe('Retain');
    synth.template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: `alias/${synth.stack.stackName}/webhook-secrets`,
      TargetKeyId: arn,
    });
    for (const spec of catalogue) {
      const statements = onKey(spec.id);
      const actions = statements.flatMap((statement) => asList(statement.Action)).sort();
      expect(actions, spec.id).toEqual(
        spec.webhookSecrets === 'seal' ? ['kms:Decrypt', 'kms:GenerateDataKey'] : spec.webhookSecrets === 'open' ? ['kms:Decrypt'] : [],
      );
      for (const statement of statements) {
        expect(statement.Condition).toEqual({
          StringEquals: { 'kms:EncryptionContext:purpose': 'bureau-webhook-signing-secrets' },
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['clientId', 'purpose'] },
        });
      }
      expect(synth.environmentOf(spec.id).WEBHOOK_SECRETS_KEY_ID, spec.id).toEqual(spec.webhookSecrets ? arn : undefined);
    }
    expect(catalogue.filter((spec) => spec.webhookSecrets).map((spec) => `${spec.id}:${spec.webhookSecrets}`)).toEqual([
      'webhooks:seal',
      'workspace:seal',
      'sender:open',
    ]);
  });

  it('encrypts the signing key with its own rotating KMS key', () => {
    const keyId = synth.logicalId(synth.stack.signingKey.key);
    synth.template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    synth.template.hasResourceProperties('AWS::SecretsManager::Secret', { KmsKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
  });

  it('rotates the signing key every 30 days with the rotation function, starting at deployment', () => {
    synth.template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 1);
    synth.template.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
      SecretId: { Ref: synth.logicalId(synth.stack.signingKey.secret) },
      RotationLambdaARN: { 'Fn::GetAtt': [synth.functionId('keyRotation'), 'Arn'] },
      RotationRules: { ScheduleExpression: 'rate(30 days)' },
      RotateImmediatelyOnUpdate: true,
    });
    synth.template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [synth.functionId('keyRotation'), 'Arn'] },
      Principal: 'secretsmanager.amazonaws.com',
    });
  });

  it('alarms on the functions without routes, the API, the stream, the queues and delivery success, as pages or tickets', () => {
    const alarms = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm')) as Array<{ Properties: Loose }>;
    const named = (metric: string) => alarms.filter((alarm) => alarm.Properties.MetricName === metric);
    const using = (metric: string) =>
      alarms.filter((alarm) => JSON.stringify(alarm.Properties.Metrics ?? []).includes(`"MetricName":"${metric}"`));
    const paging = { Ref: synth.logicalId(synth.stack.alarms.paging) };
    const tickets = { Ref: synth.logicalId(synth.stack.alarms.tickets) };

    // Every function without a route, the register import's too: its failures as a share of its runs.
    // The API's functions fail as the API does, and a throttle is the account's concurrency, alarmed once.
    const unrouted = [...catalogue, ...registerImportFunctions, ...accountsImportFunctions].filter((spec) => spec.routes.length === 0);
    expect(using('Errors')).toHaveLength(unrouted.length);
    expect(named('Throttles')).toHaveLength(0);
    // A run cut off at its timeout is an error; only the stream consumer, which runs to a deadline, has a duration alarm.
    expect(named('Duration')).toHaveLength(1);
    // The API: a 5xx share over enough requests, and p99 latency over 2 s for 15 minutes with traffic.
    expect(using('5xx')).toHaveLength(1);
    const latency = using('Latency')[0]?.Properties;
    expect(latency).toMatchObject({ Threshold: 2000, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    // The stream, each dead-letter queue and each queue's backlog; stream failures waiting for hours, and records lost before their replay.
    expect(named('IteratorAge')).toHaveLength(1);
    expect(named('ApproximateNumberOfMessagesVisible')).toHaveLength(2 * allQueues.length);
    expect(named('ApproximateAgeOfOldestMessage')[0]?.Properties).toMatchObject({ Threshold: 6 * 3600 });
    expect(named('StreamRecordsLost')[0]?.Properties).toMatchObject({ Namespace: 'Bureau', Threshold: 1 });
    // The functions' own metrics: unhandled errors as a share of requests, and delivery success as metric math.
    expect(using('UnhandledErrors')[0]?.Properties).toMatchObject({ Threshold: 0.1, AlarmActions: [tickets] });
    const success = alarms.find((alarm) => JSON.stringify(alarm.Properties.Metrics ?? []).includes('DeliveriesSucceeded'));
    expect(success?.Properties).toMatchObject({ Threshold: 90, ComparisonOperator: 'LessThanThreshold' });
    // A metric alarm opens a ticket, or notifies no one and pages through its composite.
    for (const alarm of alarms) expect([[], [tickets]]).toContainEqual(alarm.Properties.AlarmActions ?? []);
    const pages = Object.values(synth.template.findResources('AWS::CloudWatch::CompositeAlarm')) as Array<{ Properties: Loose }>;
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages) {
      expect(page.Properties.AlarmActions).toEqual([paging]);
      expect(page.Properties.OKActions).toEqual([paging]);
    }
    synth.template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
  });

  it('draws one dashboard of the whole service: API, functions, stream, queues, dead letters, deliveries and the alarms', () => {
    const dashboards = Object.values(synth.template.findResources('AWS::CloudWatch::Dashboard')) as Array<{ Properties: Loose }>;
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);

    expect(dashboards).toHaveLength(1);
    for (const title of [
      'API requests',
      'API latency (ms)',
      'API 4xx and 5xx',
      'Function errors',
      'Function throttles',
      'Function duration p99 (ms)',
      'Companies stream: iterator age (ms)',
      'Queues: ready messages and oldest age (s)',
      'Dead-letter queues',
      'DeadLetterRedrives',
      'Delivery success, last hour',
      'Alarms',
    ]) {
      expect(body, title).toContain(title);
    }
  });

  it('builds each queue and its dead-letter queue from the shared definition: encrypted, SSL-only, kept past the retry schedule', () => {
    const queues = synth.template.findResources('AWS::SQS::Queue');
    for (const def of allQueues) {
      const built = synth.stack.queues.of(def);
      const queue = queues[synth.logicalId(built.queue)]?.Properties;
      expect(queue).toMatchObject({
        SqsManagedSseEnabled: true,
        VisibilityTimeout: def.visibilityTimeoutSeconds,
        MessageRetentionPeriod: def.retentionSeconds,
        RedrivePolicy: { maxReceiveCount: def.deadLetter.maxReceiveCount },
      });
      expect(queues[synth.logicalId(built.deadLetterQueue)]?.Properties).toMatchObject({ SqsManagedSseEnabled: true });
    }
    const scheduleSeconds = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay * 1.1, 0);
    expect(deliveriesQueue.retentionSeconds).toBeGreaterThan(scheduleSeconds);
    // The schedule is counted in the delivery log: the queue parks only what is handed out far more often.
    expect(deliveriesQueue.deadLetter.maxReceiveCount).toBeGreaterThanOrEqual(5 * MAX_DELIVERY_ATTEMPTS);
    const sender = catalogue.find((spec) => spec.id === 'sender') as FunctionSpec;
    expect(deliveriesQueue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * (sender.timeoutSeconds as number));
    const sslOnly = Object.values(synth.template.findResources('AWS::SQS::QueuePolicy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Array<{ Effect: string; Condition?: unknown }>,
    );
    expect(
      sslOnly.filter((statement) => statement.Effect === 'Deny' && JSON.stringify(statement.Condition).includes('aws:SecureTransport'))
        .length,
    ).toBe(allQueues.length * 2);
  });

  it('maps the companies stream to the detector: profile rewrites only, bisected, retried a bounded number of times, failures kept', () => {
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: synth.functionId('changeDetector') },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [synth.logicalId(synth.stack.queues.of(streamFailuresQueue).queue), 'Arn'] } },
      },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['MODIFY'], dynamodb: { Keys: { sk: { S: ['PROFILE'] } } } }) }] },
    });
  });

  it('replays what the detector gave up on: the failure queue feeds the replayer, whose role holds exactly what it calls', () => {
    const arnOf = (construct: IConstruct) => ({ 'Fn::GetAtt': [synth.logicalId(construct), 'Arn'] });
    const failures = synth.stack.queues.of(streamFailuresQueue).queue;
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: synth.functionId('streamReplay') },
      EventSourceArn: arnOf(failures),
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const sorted = (statements: Statement[]) =>
      statements
        .map((statement) => ({ ...statement, Action: asList(statement.Action) }))
        .sort((a, b) => (a.Action[0] as string).localeCompare(b.Action[0] as string));

    expect(sorted(synth.statementsOf('streamReplay'))).toEqual(
      sorted([
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: arnOf(synth.stack.functions.get('streamReplay')?.logGroup as IConstruct),
        },
        { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' },
        // The stream alone, never the companies table itself.
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetShardIterator', 'dynamodb:GetRecords'],
          Resource: { 'Fn::GetAtt': [synth.logicalId(synth.stack.tables.of(companiesTable)), 'StreamArn'] },
        },
        // Who watches the company, as the detector asks.
        { Effect: 'Allow', Action: ['dynamodb:Query'], Resource: arnOf(synth.stack.tables.of(watchesTable)) },
        { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: arnOf(synth.stack.queues.of(fanoutQueue).queue) },
        {
          Effect: 'Allow',
          Action: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
          Resource: arnOf(failures),
        },
      ]),
    );
  });

  it('alarms on the stream failure path: a pointer parked, a pointer waiting hours, records gone before their replay', () => {
    const alarms = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm')) as Array<{ Properties: Loose }>;
    const onQueue = (metric: string, construct: IConstruct) =>
      alarms.filter(
        (alarm) =>
          alarm.Properties.MetricName === metric &&
          JSON.stringify(alarm.Properties.Dimensions) ===
            JSON.stringify([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [synth.logicalId(construct), 'QueueName'] } }]),
      );
    const failures = synth.stack.queues.of(streamFailuresQueue);

    expect(onQueue('ApproximateNumberOfMessagesVisible', failures.deadLetterQueue).map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({ Threshold: 1, Statistic: 'Maximum', ComparisonOperator: 'GreaterThanOrEqualToThreshold' }),
    ]);
    // Well inside the stream's 24 hours, so there is time to fix the replayer before the records go.
    expect(onQueue('ApproximateAgeOfOldestMessage', failures.queue).map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({ Threshold: 6 * 3600, Statistic: 'Maximum', ComparisonOperator: 'GreaterThanThreshold' }),
    ]);
    expect(alarms.filter((alarm) => alarm.Properties.MetricName === 'StreamRecordsLost').map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({
        Namespace: 'Bureau',
        Dimensions: [{ Name: 'service', Value: 'bureau' }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    ]);
  });

  it('maps the fan-out and deliveries queues to their functions with partial batch failures and bounded concurrency', () => {
    for (const [id, queue, concurrency] of [
      ['fanout', fanoutQueue, 5],
      ['sender', deliveriesQueue, 10],
    ] as const) {
      synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: synth.functionId(id) },
        EventSourceArn: { 'Fn::GetAtt': [synth.logicalId(synth.stack.queues.of(queue).queue), 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: concurrency },
      });
    }
  });

  it('lets each pipeline function use only its own queues: the detector sends fan-out tasks, the sender consumes deliveries', () => {
    const queueArn = (def: typeof fanoutQueue) => ({ 'Fn::GetAtt': [synth.logicalId(synth.stack.queues.of(def).queue), 'Arn'] });
    const sqsStatements = (id: string) =>
      synth.statementsOf(id).filter((statement) => asList(statement.Action).some((action) => action.startsWith('sqs:')));
    // The stream mapping's on-failure destination is sent to with the function's role; the replayer consumes it.
    expect(sqsStatements('changeDetector').map((statement) => statement.Resource)).toEqual([
      queueArn(fanoutQueue),
      queueArn(streamFailuresQueue),
    ]);
    expect(sqsStatements('streamReplay').map((statement) => statement.Resource)).toEqual([
      queueArn(fanoutQueue),
      queueArn(streamFailuresQueue),
    ]);
    expect(sqsStatements('changeDetector').some(grants('sqs:ReceiveMessage'))).toBe(false);
    expect(
      sqsStatements('sender').every((statement) => JSON.stringify(statement.Resource) === JSON.stringify(queueArn(deliveriesQueue))),
    ).toBe(true);
    expect(sqsStatements('sender').some(grants('sqs:ChangeMessageVisibility'))).toBe(true);
    expect(sqsStatements('sender').some(grants('sqs:SendMessage'))).toBe(false);
    expect(sqsStatements('webhooks').map((statement) => statement.Resource)).toEqual([queueArn(deliveriesQueue)]);
    for (const spec of catalogue) if (!spec.queues) expect(sqsStatements(spec.id)).toEqual([]);
  });

  it('never lets a deployed function deliver to loopback receivers', () => {
    for (const spec of catalogue) expect(synth.environmentOf(spec.id)).not.toHaveProperty('BUREAU_LOOPBACK_RECEIVERS');
  });

  it('exports the outputs the operator CLI reads', () => {
    const outputs = synth.template.toJSON().Outputs;
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'ClientsTableName',
        'CompaniesTableName',
        'WatchesTableName',
        'WebhooksTableName',
        'DeliveriesTableName',
        'DeliveriesQueueUrl',
        'DeliveriesDeadLetterQueueUrl',
        'SigningKeySecretArn',
        'WorkspaceTableName',
        'WorkspaceUrl',
        'DashboardUrl',
      ]),
    );
    expect(outputs.ClientsTableName.Value).toEqual({ Ref: synth.logicalId(synth.stack.tables.of(allTables[0] as never)) });
  });

  it("applies a stage's settings: throttle, log retention, key rotation and the alarm address", () => {
    const staged = synthesize({
      settings: {
        apiThrottle: { rateLimit: 7, burstLimit: 9 },
        functionLogRetentionDays: 14,
        accessLogRetentionDays: 365,
        signingKeyRotationDays: 7,
        alarms: { emails: ['ops@bureau.example'], topicArns: [] },
      },
    });

    staged.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 },
    });
    const retentions = Object.values(staged.template.findResources('AWS::Logs::LogGroup')).map((group) => group.Properties.RetentionInDays);
    // Every function's log group, and the register and accounts imports' state machines'.
    expect(retentions.filter((days) => days === 14)).toHaveLength(
      staged.stack.functions.size + staged.stack.registerImport.functions.size + staged.stack.accountsImport.functions.size + 2,
    );
    expect(retentions).toContain(365);
    staged.template.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
      RotationRules: { ScheduleExpression: 'rate(7 days)' },
    });
    staged.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@bureau.example' });
  });

  it('passes the token issuer and audience it is given to every function', () => {
    const custom = synthesize({ settings: { tokenIssuer: 'https://api.bureau.test', tokenAudience: 'bureau-test' } });
    for (const spec of catalogue) {
      expect(custom.environmentOf(spec.id)).toMatchObject({ TOKEN_ISSUER: 'https://api.bureau.test', TOKEN_AUDIENCE: 'bureau-test' });
    }
  });

  it('has no unacknowledged cdk-nag AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);

    expect(report.violations.map((v) => `${v.ruleName} (${v.severity}) at ${v.violatingResources.map((r) => r.constructPath)}`)).toEqual(
      [],
    );
  });
});

describe('BureauStack built from a catalogue with a new function', () => {
  const extra: FunctionSpec = {
    id: 'extra',
    entry: 'test/infra/fixtures/handler.ts',
    description: 'A function added to the catalogue',
    routes: [{ method: 'DELETE', path: '/v1/extra/{id}', access: 'bearer' }],
    tables: [{ table: watchesTable, access: { actions: ['GetItem', 'UpdateItem'], queryIndexes: ['byClient'] } }],
    memoryMb: 256,
  };

  it('deploys it with its route and grants and no change to the stack', () => {
    const synth = synthesize({ functions: [...catalogue, extra] });

    synth.template.hasResourceProperties('AWS::Lambda::Function', { Description: extra.description, MemorySize: 256 });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'DELETE /v1/extra/{id}' });
    const watches = synth.logicalId(synth.stack.tables.of(watchesTable));
    expect(synth.statementsOf('extra')).toEqual(
      expect.arrayContaining([
        { Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], Effect: 'Allow', Resource: { 'Fn::GetAtt': [watches, 'Arn'] } },
        {
          Action: 'dynamodb:Query',
          Effect: 'Allow',
          Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [watches, 'Arn'] }, '/index/byClient']] },
        },
      ]),
    );
    // Only the origin secret every routed function checks requests against; never the signing key.
    const secretReads = synth.statementsOf('extra').filter(grants('secretsmanager:GetSecretValue'));
    expect(secretReads.map((statement) => statement.Resource)).toEqual([{ Ref: synth.logicalId(synth.stack.frontDoor.originSecret) }]);
    expect(synth.environmentOf('extra').WATCHES_TABLE).toEqual({ Ref: watches });
    expect(new AwsSolutionsChecks().validateScope(synth.stack).violations).toEqual([]);
  });
});

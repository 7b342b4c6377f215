import { Duration, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  CorsHttpMethod,
  type CorsPreflightOptions,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_CORS, type CorsSettings } from '../../shared/http/cors';
import type { RouteAccess, RouteSpec } from '../catalogue';

export interface BureauApiProps {
  /** Steady-state requests per second across the API. */
  readonly rateLimit?: number;
  /** Requests the API absorbs at once above the steady rate. */
  readonly burstLimit?: number;
  readonly logRetention?: RetentionDays;
  /** Closes the API's execute-api address; CloudFront then reaches it through a PrivateOrigin. */
  readonly closeExecuteApiEndpoint?: boolean;
}

/** One JSON object per request; never headers, query strings or bodies, which may carry credentials. */
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    routeKey: '$context.routeKey',
    status: '$context.status',
    latency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    responseLength: '$context.responseLength',
  }),
);

/** Why a route has no gateway authorizer: where its callers are checked instead. */
const ACCESS_CHECKED_IN_FUNCTION: Readonly<Record<RouteAccess, string>> = {
  'client-credentials':
    'The token route takes client credentials, checked by the token function with per-address and per-client failure limits.',
  bearer:
    'The function verifies the bearer JWT, the client status and its rate limit, so disabling a client or rotating its secret takes effect within a minute.',
  'workspace-session':
    'The workspace function checks the session cookie and its CSRF token, or runs the rate-limited sign-in that starts one.',
  public: 'The public JWKS, which every client needs to verify tokens, holds only public keys.',
};

/** The shared CORS settings as the HTTP API's configuration, which the local gateway applies too. */
export function corsPreflightOf(settings: CorsSettings): CorsPreflightOptions {
  return {
    allowOrigins: [...settings.allowOrigins],
    allowMethods: settings.allowMethods.map((method) => CorsHttpMethod[method]),
    allowHeaders: [...settings.allowHeaders],
    exposeHeaders: [...settings.exposeHeaders],
    maxAge: Duration.seconds(settings.maxAgeSeconds),
    allowCredentials: settings.allowCredentials,
  };
}

/**
 * The HTTP API (payload format 2.0) in front of the functions: one Lambda proxy route per catalogue
 * route, JSON access logs, and a stage-wide throttle. CORS for any origin without credentials
 * (shared/http/cors.ts): the API is bearer-only, so a browser page may call it with a token it holds
 * and never with the browser's cookies. The configuration is API-wide, so the workspace's routes get
 * it too, where it opens nothing: without Allow-Credentials no page of another origin reads an
 * answer a session cookie earned, and the workspace refuses changes from other origins.
 */
export class BureauApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  /** The stage's default route throttle: what each route allows before answering 429. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  private readonly integrations = new Map<IFunction, HttpLambdaIntegration>();
  /** Per-route throttles, by route key; API Gateway applies them instead of the stage's. */
  private readonly routeThrottles: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};

  constructor(scope: Construct, id: string, props: BureauApiProps = {}) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Bureau company-data API',
      createDefaultStage: false,
      // Said even when false: the way back from a closed address must open it again, and a property
      // dropped from a template is not always put back to its default.
      disableExecuteApiEndpoint: props.closeExecuteApiEndpoint ?? false,
      corsPreflight: corsPreflightOf(API_CORS),
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention ?? RetentionDays.THREE_MONTHS });
    this.throttle = { rateLimit: props.rateLimit ?? 100, burstLimit: props.burstLimit ?? 200 };
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      autoDeploy: true,
      throttle: this.throttle,
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: accessLogFormat },
    });
  }

  /** Root URL of the API's execute-api address, without a trailing slash; the CDK refuses it when that address is closed. */
  get url(): string {
    return this.httpApi.apiEndpoint;
  }

  addRoute(route: RouteSpec, fn: IFunction): void {
    const [added] = this.httpApi.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration: this.integrationFor(fn) });
    if (added) Validations.of(added).acknowledge({ id: 'AwsSolutions-APIG4', reason: ACCESS_CHECKED_IN_FUNCTION[route.access] });
    if (route.throttle) {
      this.routeThrottles[`${route.method} ${route.path}`] = {
        ThrottlingRateLimit: route.throttle.rateLimit,
        ThrottlingBurstLimit: route.throttle.burstLimit,
      };
      (this.stage.node.defaultChild as CfnStage).routeSettings = this.routeThrottles;
    }
  }

  private integrationFor(fn: IFunction): HttpLambdaIntegration {
    let integration = this.integrations.get(fn);
    if (!integration) {
      integration = new HttpLambdaIntegration(`${fn.node.id}Integration`, fn);
      this.integrations.set(fn, integration);
    }
    return integration;
  }
}

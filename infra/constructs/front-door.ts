import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnElement, DockerImage, Duration, FileSystem, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { API_CORS } from '../../shared/http/cors';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../shared/http/origin-guard';
import { OPENAPI_DOCUMENT_PATH } from '../../shared/openapi/document-endpoint';
import {
  REFERENCE_CONTENT_SECURITY_POLICY,
  REFERENCE_PATH,
  WORKSPACE_CONTENT_SECURITY_POLICY,
  WORKSPACE_PATH,
} from '../../shared/workspace/site-headers';

export interface FrontDoorProps {
  /**
   * Where CloudFront sends API requests: the HTTP API's execute-api endpoint,
   * https://<id>.execute-api.<region>.amazonaws.com, or, when that is closed, the host name of the
   * API's private custom domain (constructs/private-origin).
   */
  readonly api: { readonly endpoint: string } | { readonly privateDomainName: string };
  readonly repositoryRoot: string;
  /** The AWS WAF web ACL (CloudFront scope, in us-east-1) every request passes. */
  readonly webAclArn: string;
  /** The API's own domain, with its us-east-1 certificate and, if its DNS is in Route 53, the zone for its alias records. */
  readonly domain?: {
    readonly name: string;
    readonly certificate: ICertificate;
    readonly hostedZone?: { readonly id: string; readonly name: string };
  };
  /** Raised to make CloudFront read a new origin secret value. */
  readonly originSecretRevision: number;
}

/**
 * The one public entry of the service: CloudFront behind AWS WAF, on the API's own domain when it
 * has one. It serves the built workspace app (web/dist) from a private S3 bucket under /workspace/,
 * the API reference page under /workspace/reference/ with a policy of its own (sandboxed: it runs in
 * an opaque origin, apart from the workspace's session), and passes /workspace/api/* and /v1/* to the
 * HTTP API uncached, cookies and all. Same origin means the session cookie can be SameSite=Strict and
 * the app needs no CORS; the API's CORS, for the reference page and other browsers, is the HTTP
 * API's own (constructs/api).
 *
 * CloudFront adds a secret header to every request it forwards and the functions refuse any request
 * without it (shared/http/origin-guard), so a caller who goes round CloudFront meets the firewall's
 * rules, or nothing. A refusal still costs a request, a Lambda run and the route's throttle, which
 * the real callers share, so a stage whose domain is in Route 53 also closes the execute-api address
 * and has CloudFront reach the API by a name nobody else knows (constructs/private-origin). Without
 * such a zone, that address stays open: the name needs a certificate in the stage's region and
 * records the stack can only write in a zone of its own account (stack output ExecuteApiAddress).
 */
export class FrontDoor extends Construct {
  readonly distribution: Distribution;
  readonly bucket: Bucket;
  /** The header value CloudFront sends the API; only the API's functions may read it. */
  readonly originSecret: Secret;
  private readonly domainName?: string;

  constructor(scope: Construct, id: string, props: FrontDoorProps) {
    super(scope, id);
    this.domainName = props.domain?.name;
    this.originSecret = new Secret(this, 'OriginSecret', {
      description: 'Bureau: the header value CloudFront sends the API, proving a request passed the firewall',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    Validations.of(this.originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotated by hand (docs/operations.md): CloudFront only reads the value on a deploy, so a scheduled rotation would lock it out until the next one.',
    });
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Rebuilt from the repository on every deploy: nothing in it is worth keeping.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'The bucket holds only the public build of the workspace app, served through CloudFront; reads are not worth an access log.',
    });

    const securityHeaders = (id: string, comment: string, contentSecurityPolicy: string) =>
      new ResponseHeadersPolicy(this, id, {
        comment,
        securityHeadersBehavior: {
          contentSecurityPolicy: { contentSecurityPolicy, override: true },
          contentTypeOptions: { override: true },
          frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
          referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
          strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        },
      });
    const siteOrigin = S3BucketOrigin.withOriginAccessControl(this.bucket);
    // The app is one page: /workspace and /workspace/ are its index.html.
    const indexPage = new EdgeFunction(this, 'IndexPage', {
      comment: 'Serves index.html for the workspace folder',
      code: FunctionCode.fromInline(
        `function handler(event) { var r = event.request; if (r.uri === '/' || r.uri === '${WORKSPACE_PATH}' || r.uri === '${WORKSPACE_PATH}/') r.uri = '${WORKSPACE_PATH}/index.html'; return r; }`,
      ),
    });
    // The reference is one page too; its bare folder redirects, so that the page has one address.
    const referencePage = new EdgeFunction(this, 'ReferencePage', {
      comment: 'Serves index.html for the API reference folder',
      code: FunctionCode.fromInline(
        `function handler(event) { var r = event.request; if (r.uri === '${REFERENCE_PATH}') return { statusCode: 308, statusDescription: 'Permanent Redirect', headers: { location: { value: '${REFERENCE_PATH}/' } } }; r.uri = '${REFERENCE_PATH}/index.html'; return r; }`,
      ),
    });
    const referenceBehaviour = {
      origin: siteOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: securityHeaders(
        'ReferenceSecurityHeaders',
        'Bureau API reference: sandboxed, strict CSP with inline styles, no framing, no referrer',
        REFERENCE_CONTENT_SECURITY_POLICY,
      ),
      functionAssociations: [{ function: referencePage, eventType: FunctionEventType.VIEWER_REQUEST }],
    };
    // https://<id>.execute-api.<region>.amazonaws.com → its host name.
    const apiHost = 'privateDomainName' in props.api ? props.api.privateDomainName : Fn.select(2, Fn.split('/', props.api.endpoint));
    const api = new HttpOrigin(apiHost, {
      // Replaces any header of that name a caller sends.
      customHeaders: { [ORIGIN_VERIFY_HEADER]: this.originSecret.secretValue.unsafeUnwrap() },
    });
    // The gateway sees CloudFront's address; the functions' per-address limits need the caller's.
    const viewerAddress = new EdgeFunction(this, 'ViewerAddress', {
      comment: "Passes the caller's address to the API",
      code: FunctionCode.fromInline(
        `function handler(event) { event.request.headers['${VIEWER_ADDRESS_HEADER}'] = { value: event.viewer.ip }; return event.request; }`,
      ),
    });
    const apiBehaviour = {
      origin: api,
      functionAssociations: [{ function: viewerAddress, eventType: FunctionEventType.VIEWER_REQUEST }],
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      // Everything but Host: API Gateway routes by its own host name (execute-api's, or the private domain's).
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      // The revision changes the resource, and only a changed resource re-reads the secret's dynamic reference.
      comment: `Bureau: the API and the workspace (origin secret revision ${props.originSecretRevision})`,
      webAclId: props.webAclArn,
      ...(props.domain
        ? {
            domainNames: [props.domain.name],
            certificate: props.domain.certificate,
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: siteOrigin,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: securityHeaders(
          'SecurityHeaders',
          'Bureau workspace: strict CSP, no framing, no referrer',
          WORKSPACE_CONTENT_SECURITY_POLICY,
        ),
        functionAssociations: [{ function: indexPage, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [`${WORKSPACE_PATH}/api/*`]: apiBehaviour,
        // Before /v1/*: the public document is the one API answer the same for everyone, so the edge keeps
        // it for its max-age (compressed: 78 KB becomes about 10) and answers a client's ETag itself.
        [OPENAPI_DOCUMENT_PATH]: {
          ...apiBehaviour,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
          cachePolicy: CachePolicy.CACHING_OPTIMIZED,
          originRequestPolicy: undefined,
          // The gateway adds CORS headers only for a request with an Origin, which this behaviour
          // neither forwards nor keys its cache by: the edge adds them to every copy it serves.
          responseHeadersPolicy: new ResponseHeadersPolicy(this, 'OpenApiDocumentCors', {
            comment: 'Bureau OpenAPI document: readable by any page, without credentials, as the API is',
            corsBehavior: {
              accessControlAllowOrigins: [...API_CORS.allowOrigins],
              accessControlAllowMethods: ['GET', 'HEAD'],
              accessControlAllowHeaders: [...API_CORS.allowHeaders],
              accessControlExposeHeaders: [...API_CORS.exposeHeaders],
              accessControlMaxAge: Duration.seconds(API_CORS.maxAgeSeconds),
              accessControlAllowCredentials: API_CORS.allowCredentials,
              originOverride: true,
            },
          }),
        },
        '/v1/*': apiBehaviour,
        [REFERENCE_PATH]: referenceBehaviour,
        [`${REFERENCE_PATH}/*`]: referenceBehaviour,
      },
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'Clients and their people work from anywhere; the data is public register data.' },
      {
        id: 'AwsSolutions-CFR3',
        reason: 'Every API request is logged by the HTTP API stage and every blocked one by AWS WAF; the static files need no log.',
      },
    );
    if (!props.domain) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'Without a domain of its own the distribution can only use the *.cloudfront.net certificate, whose policy CloudFront sets; a stage with edge.domainName gets TLS 1.2 at least.',
      });
    }
    if (props.domain?.hostedZone) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
        hostedZoneId: props.domain.hostedZone.id,
        zoneName: props.domain.hostedZone.name,
      });
      const target = RecordTarget.fromAlias(new CloudFrontTarget(this.distribution));
      new ARecord(this, 'AliasV4', { zone, recordName: props.domain.name, target });
      new AaaaRecord(this, 'AliasV6', { zone, recordName: props.domain.name, target });
    }

    // The pages are revalidated on every visit and invalidated on every deploy; everything else has
    // a content hash in its name.
    const pages = ['index.html', 'reference/index.html'];
    new BucketDeployment(this, 'Assets', {
      sources: [appSource(props.repositoryRoot)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: `${WORKSPACE_PATH.slice(1)}/`,
      exclude: pages,
      cacheControl: [CacheControl.fromString('public, max-age=31536000, immutable')],
      prune: false,
    });
    new BucketDeployment(this, 'Page', {
      sources: [appSource(props.repositoryRoot)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: `${WORKSPACE_PATH.slice(1)}/`,
      exclude: ['*'],
      include: pages,
      cacheControl: [CacheControl.noCache()],
      prune: false,
      distribution: this.distribution,
      distributionPaths: [`${WORKSPACE_PATH}/`, `${WORKSPACE_PATH}/index.html`, `${REFERENCE_PATH}/`, `${REFERENCE_PATH}/index.html`],
    });
    acknowledgeDeploymentHandler(this);
  }

  /** https://<the API's domain>, or https://<distribution>.cloudfront.net without one. */
  get origin(): string {
    return `https://${this.domainName ?? this.distribution.distributionDomainName}`;
  }
}

/**
 * BucketDeployment copies the built files with one handler per stack, which the CDK creates and
 * owns; its grants are scoped to the CDK asset bucket and the site bucket.
 */
function acknowledgeDeploymentHandler(scope: Construct): void {
  const stack = Stack.of(scope);
  const handler = stack.node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!handler) return;
  const copying =
    'The CDK deployment handler reads the staged files from the CDK asset bucket and replaces the workspace files in the site bucket';
  Validations.of(handler).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The CDK-owned deployment handler writes its own logs with the basic execution role.',
    },
    ...[
      'Action::s3:GetObject*',
      'Action::s3:GetBucket*',
      'Action::s3:List*',
      'Action::s3:DeleteObject*',
      'Action::s3:Abort*',
      'Resource::*',
    ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: `${copying}.` })),
    {
      // With deploying credentials the CDK knows the account and region, and cdk-nag names them as they are.
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account}-${Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region}/*]`,
      reason: `${copying}: any staged object of this deployment.`,
    },
    {
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(scope.node.findChild('Files').node.defaultChild as CfnElement)}.Arn>/*]`,
      reason: `${copying}: every object under the workspace prefix.`,
    },
    { id: 'AwsSolutions-L1', reason: 'The CDK pins the deployment handler runtime with the aws-cdk-lib version.' },
  );
}

/**
 * The app and the reference page built by Vite at synth time, on this machine (no Docker needed),
 * from web/. The build also copies Scalar's bundle from node_modules, outside web/, so the asset's
 * hash covers the locked dependencies too: a new Scalar is a new deployment even when web/ is
 * unchanged.
 */
function appSource(repositoryRoot: string) {
  const web = join(repositoryRoot, 'web');
  const exclude = ['dist', 'node_modules'];
  const assetHash = createHash('sha256')
    .update(FileSystem.fingerprint(web, { exclude }))
    .update(readFileSync(join(repositoryRoot, 'package-lock.json')))
    .digest('hex');
  return Source.asset(web, {
    exclude,
    assetHash,
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      local: {
        tryBundle(outputDir) {
          const vite = join(repositoryRoot, 'node_modules', 'vite', 'bin', 'vite.js');
          execFileSync(process.execPath, [vite, 'build', '--config', join(web, 'vite.config.ts'), '--outDir', outputDir, '--emptyOutDir'], {
            cwd: repositoryRoot,
            stdio: 'inherit',
          });
          return true;
        },
      },
    },
  });
}

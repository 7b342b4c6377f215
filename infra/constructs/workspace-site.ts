import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type CfnElement, DockerImage, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
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
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { WORKSPACE_CONTENT_SECURITY_POLICY, WORKSPACE_PATH } from '../../shared/workspace/site-headers';

export interface WorkspaceSiteProps {
  /** The HTTP API's endpoint, https://<id>.execute-api.<region>.amazonaws.com. */
  readonly apiEndpoint: string;
  readonly repositoryRoot: string;
}

/**
 * One origin for the workspace and its API: CloudFront serves the built app (web/dist) from a
 * private S3 bucket under /workspace/, and passes /workspace/api/* and /v1/* to the HTTP API
 * uncached, cookies and all. Same origin means the session cookie can be SameSite=Strict and the
 * app needs no CORS. The pages carry the workspace's Content-Security-Policy.
 */
export class WorkspaceSite extends Construct {
  readonly distribution: Distribution;
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: WorkspaceSiteProps) {
    super(scope, id);
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

    const securityHeaders = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Bureau workspace: strict CSP, no framing, no referrer',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: WORKSPACE_CONTENT_SECURITY_POLICY, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    // The app is one page: /workspace and /workspace/ are its index.html.
    const indexPage = new EdgeFunction(this, 'IndexPage', {
      comment: 'Serves index.html for the workspace folder',
      code: FunctionCode.fromInline(
        `function handler(event) { var r = event.request; if (r.uri === '/' || r.uri === '${WORKSPACE_PATH}' || r.uri === '${WORKSPACE_PATH}/') r.uri = '${WORKSPACE_PATH}/index.html'; return r; }`,
      ),
    });
    // https://<id>.execute-api.<region>.amazonaws.com → its host name.
    const api = new HttpOrigin(Fn.select(2, Fn.split('/', props.apiEndpoint)));
    const apiBehaviour = {
      origin: api,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      // Everything but Host: API Gateway routes by its own host name.
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Bureau: the workspace and the API on one origin',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: securityHeaders,
        functionAssociations: [{ function: indexPage, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: { [`${WORKSPACE_PATH}/api/*`]: apiBehaviour, '/v1/*': apiBehaviour },
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'Clients and their people work from anywhere; the data is public register data.' },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Sign-in routes have their own gateway throttle and per-person and per-address counters in the function; a WAF web ACL belongs with the custom domain.',
      },
      { id: 'AwsSolutions-CFR3', reason: 'Every API request is already logged by the HTTP API stage; the static files need no log.' },
      {
        id: 'AwsSolutions-CFR4',
        reason: 'The default *.cloudfront.net certificate; a custom domain with a TLS 1.2 minimum policy is configured per deployment.',
      },
    );

    new BucketDeployment(this, 'Assets', {
      sources: [appSource(props.repositoryRoot)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: `${WORKSPACE_PATH.slice(1)}/`,
      exclude: ['index.html'],
      cacheControl: [CacheControl.fromString('public, max-age=31536000, immutable')],
      prune: false,
    });
    new BucketDeployment(this, 'Page', {
      sources: [appSource(props.repositoryRoot)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: `${WORKSPACE_PATH.slice(1)}/`,
      exclude: ['*'],
      include: ['index.html'],
      cacheControl: [CacheControl.noCache()],
      prune: false,
      distribution: this.distribution,
      distributionPaths: [`${WORKSPACE_PATH}/`, `${WORKSPACE_PATH}/index.html`],
    });
    acknowledgeDeploymentHandler(this);
  }

  /** https://<distribution>.cloudfront.net */
  get origin(): string {
    return `https://${this.distribution.distributionDomainName}`;
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
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      reason: `${copying}: any staged object of this deployment.`,
    },
    {
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(scope.node.findChild('Files').node.defaultChild as CfnElement)}.Arn>/*]`,
      reason: `${copying}: every object under the workspace prefix.`,
    },
    { id: 'AwsSolutions-L1', reason: 'The CDK pins the deployment handler runtime with the aws-cdk-lib version.' },
  );
}

/** The app built by Vite at synth time, on this machine (no Docker needed), from web/. */
function appSource(repositoryRoot: string) {
  const web = join(repositoryRoot, 'web');
  return Source.asset(web, {
    exclude: ['dist', 'node_modules'],
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

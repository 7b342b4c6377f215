import { Duration, type Size, Validations } from 'aws-cdk-lib';
import { type IVpc, SubnetType } from 'aws-cdk-lib/aws-ec2';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { isKeyedWrite } from '../../shared/iam/actions';
import { SERVICE_NAME } from '../../shared/observability/service';
import { UPLOADS_BUCKET_VARIABLE } from '../../shared/register/import/object-keys';
import { esmRequireBanner, lambdaBundleAliases } from '../bundling/options';
import type { TableAccess, UploadsGrant } from '../catalogue';
import type { BureauTable } from './tables';

export interface BureauFunctionProps {
  /** Absolute path of the handler module; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  /** Repository root: where package-lock.json and tsconfig.json live. */
  readonly projectRoot: string;
  readonly serviceName?: string;
  readonly memorySize?: number;
  readonly timeout?: Duration;
  readonly environment?: Readonly<Record<string, string>>;
  readonly logRetention?: RetentionDays;
  /** Runs in the VPC's private subnets, reaching the internet through its NAT gateways. */
  readonly vpc?: IVpc;
  /** /tmp beyond the 512 MB every function has. */
  readonly ephemeralStorageSize?: Size;
}

export interface TableBinding {
  readonly table: BureauTable;
  readonly access: TableAccess;
  /** Writes are allowed only on items whose partition key starts with one of these prefixes. */
  readonly writeKeyPrefixes?: readonly string[];
}

const dynamodb = (actions: readonly string[]) => actions.map((action) => `dynamodb:${action}`);

/**
 * A Lambda function with the project's defaults: current Node.js on ARM, an ESM bundle with the AWS
 * SDK inside (the version we test with, not whatever the runtime ships), its own log group and role,
 * and X-Ray tracing. Table access is granted action by action through bindTable.
 */
export class BureauFunction extends NodejsFunction {
  readonly executionRole: Role;

  constructor(scope: Construct, id: string, props: BureauFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: props.logRetention ?? RetentionDays.ONE_MONTH });
    // Our own role instead of the AWSLambdaBasicExecutionRole managed policy, whose log rights span every log group.
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${id} function`,
    });
    // A log group's ARN attribute ends in ":*", so it already covers the group's streams and nothing else.
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
    super(scope, id, {
      entry: props.entry,
      description: props.description,
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      // The major `npm test` also runs the suite on (infra/lambda-node.ts); the stack test holds them together.
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.ephemeralStorageSize ? { ephemeralStorageSize: props.ephemeralStorageSize } : {}),
      ...(props.vpc ? { vpc: props.vpc, vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS } } : {}),
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName ?? SERVICE_NAME,
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: esmRequireBanner,
        esbuildArgs: Object.fromEntries(Object.entries(lambdaBundleAliases).map(([from, to]) => [`--alias:${from}`, to])),
        externalModules: [],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
      },
    });
    this.executionRole = role;
    if (props.vpc) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
        reason: "Lambda's own policy for the network interfaces of a function in a VPC, which the CDK attaches; it grants nothing else.",
      });
    }
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions.',
    });
  }

  /**
   * Grants exactly the item actions the access names on the table, Query on the indexes it names and
   * on no other, and passes the physical table name in the definition's environment variable. With
   * key prefixes, the writes get a statement of their own under the dynamodb:LeadingKeys condition.
   */
  bindTable({ table, access, writeKeyPrefixes }: TableBinding): void {
    this.addEnvironment(table.definition.envVar, table.tableName);
    const confined = writeKeyPrefixes?.length ? access.actions.filter(isKeyedWrite) : [];
    const free = access.actions.filter((action) => !confined.includes(action));
    if (free.length > 0) this.addToRolePolicy(new PolicyStatement({ actions: dynamodb(free), resources: [table.tableArn] }));
    if (confined.length > 0) {
      this.addToRolePolicy(
        new PolicyStatement({
          actions: dynamodb(confined),
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': writeKeyPrefixes?.map((prefix) => `${prefix}*`) } },
        }),
      );
    }
    if (access.streamReads?.length) {
      if (!table.tableStreamArn) throw new Error(`${table.definition.id} has no stream to read`);
      this.addToRolePolicy(new PolicyStatement({ actions: dynamodb(access.streamReads), resources: [table.tableStreamArn] }));
    }
    const indexes = access.queryIndexes ?? [];
    if (indexes.length > 0) {
      this.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexes.map((index) => table.indexArn(index)) }));
    }
  }

  /**
   * Grants GetObject on the objects the grant reads and PutObject on those it writes, by key pattern,
   * and nothing on the bucket itself; passes the bucket's name in UPLOADS_BUCKET_VARIABLE.
   */
  bindUploads(bucket: IBucket, grant: UploadsGrant): void {
    this.addEnvironment(UPLOADS_BUCKET_VARIABLE, bucket.bucketName);
    if (grant.read.length > 0) {
      this.addToRolePolicy(
        new PolicyStatement({ actions: ['s3:GetObject'], resources: grant.read.map((pattern) => bucket.arnForObjects(pattern)) }),
      );
    }
    if (grant.write.length > 0) {
      this.addToRolePolicy(
        new PolicyStatement({ actions: ['s3:PutObject'], resources: grant.write.map((pattern) => bucket.arnForObjects(pattern)) }),
      );
    }
  }
}

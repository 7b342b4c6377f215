import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { streamFailuresQueue } from '../shared/queues/queues';
import { companiesTable } from '../shared/storage/tables';
import { DEFAULT_DELIVERY_PORTS, DELIVERY_PORTS_VARIABLE } from '../shared/webhooks/endpoint-url';
import {
  accountsImportFunctions,
  functions as catalogue,
  FUNCTION_DEFAULTS,
  type FunctionSpec,
  registerImportFunctions,
} from './catalogue';
import { AccountsImport } from './constructs/accounts-import';
import { Alarms } from './constructs/alarms';
import { BureauApi } from './constructs/api';
import { TableBackups } from './constructs/backups';
import { BureauFunction } from './constructs/bureau-function';
import { ServiceDashboard } from './constructs/dashboard';
import { DeliveryEgress } from './constructs/delivery-egress';
import { type EdgeParameterNames, EdgeParameterReader, EdgeParameterWriter } from './constructs/edge-parameters';
import { EventSources } from './constructs/event-sources';
import { FrontDoor } from './constructs/front-door';
import { outputIds } from './constructs/outputs';
import { PrivateOrigin } from './constructs/private-origin';
import { BureauQueues } from './constructs/queues';
import { RegisterDownload } from './constructs/register-download';
import { RegisterImport } from './constructs/register-import';
import { RegisterStream } from './constructs/register-stream';
import { SigningKey } from './constructs/signing-key';
import { BureauTables } from './constructs/tables';
import { WebhookSecretsKey } from './constructs/webhook-secrets-key';
import { DEFAULT_REGISTER_FEEDS, type EdgeSettings, type StageSettings, topicsIn } from './stage-settings';

export const DEFAULT_TOKEN_ISSUER = 'https://bureau.example';
export const DEFAULT_TOKEN_AUDIENCE = 'bureau-api';

/** Ready messages that, left waiting 15 minutes, mean the consumers are failing: a fan-out step fans 1,000 deliveries out. */
const BACKLOG_ALARM: Readonly<Record<string, number>> = { fanout: 100, deliveries: 5_000 };

/** A first load of the register writes faster than a new on-demand table serves, and DynamoDB's retries absorb it. */
const REGISTER_LOAD_THROTTLES =
  'a first register load throttles it on purpose for its 3 to 4 hours: docs/deploy.md, "Loading the register"';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

export interface BureauStackProps extends StackProps {
  /** The stage's settings (infra/stages.json); anything left out takes the defaults below. */
  readonly settings?: Partial<Omit<StageSettings, 'stackName'>>;
  /** The functions to deploy; the catalogue unless a test supplies its own. */
  readonly functions?: readonly FunctionSpec[];
  /** From us-east-1 (infra/edge-stack): given directly, or read from the edge stack's parameters at deploy time. */
  readonly edge: EdgeReferences | EdgeParameters;
}

/** The web ACL in front of CloudFront and, for a domain of the API's own, its certificate. */
export interface EdgeReferences {
  readonly webAclArn: string;
  readonly webAclName?: string;
  readonly certificate?: ICertificate;
}

/** The edge stack's parameters (constructs/edge-parameters), read when this stack deploys. */
export interface EdgeParameters {
  readonly parameters: EdgeParameterNames;
  readonly webAclName: string;
  /** The edge stack made the domain's certificate (the stage has a hosted zone and no certificate of its own). */
  readonly certificateFromEdge: boolean;
}

/**
 * The whole service: tables, the signing key, every function of the catalogue with its grants and
 * routes, the HTTP API and the alarms. Built from the catalogue so a function added there is deployed
 * with no change here.
 */
export class BureauStack extends Stack {
  readonly tables: BureauTables;
  readonly queues: BureauQueues;
  readonly signingKey: SigningKey;
  readonly webhookSecretsKey: WebhookSecretsKey;
  readonly api: BureauApi;
  readonly functions: ReadonlyMap<string, BureauFunction>;
  readonly alarms: Alarms;
  /** CloudFront behind AWS WAF: the public entry to the API and the workspace app. */
  readonly frontDoor: FrontDoor;
  /** Fixed addresses for webhook deliveries, when the stage asks for them. */
  readonly deliveryEgress?: DeliveryEgress;
  /** The whole register loaded from an upload by a Step Functions Distributed Map. */
  readonly registerImport: RegisterImport;
  /** The weekly CRO file, fetched and imported: the IE feed. */
  readonly registerDownload: RegisterDownload;
  /** The Companies House streams, each on its schedule, with the stream key's secret: the live GB feed. */
  readonly registerStream: RegisterStream;
  /** Filed accounts: the Accounts Data Product's archives fetched each working day and their figures stored. */
  readonly accountsImport: AccountsImport;

  constructor(scope: Construct, id: string, props: BureauStackProps) {
    super(scope, id, { description: 'Bureau company-data API', ...props });
    const warm = props.settings?.companiesWarmThroughput;
    this.tables = new BureauTables(this, 'Tables', undefined, warm ? { [companiesTable.id]: warm } : {});
    new TableBackups(this, 'Backups', { tables: this.tables, copyToVaultArn: props.settings?.backupCopyVaultArn });
    this.queues = new BureauQueues(this, 'Queues');
    const settings = props.settings ?? {};
    this.webhookSecretsKey = new WebhookSecretsKey(this, 'WebhookSecrets');
    this.signingKey = new SigningKey(this, 'SigningKey', {
      ...(settings.signingKeyRotationDays ? { rotateEvery: Duration.days(settings.signingKeyRotationDays) } : {}),
    });
    // A domain in Route 53 gives CloudFront a private name for the API, so its execute-api address can close.
    const privateName =
      settings.edge?.domainName && settings.edge.hostedZone
        ? { domainName: settings.edge.domainName, hostedZone: settings.edge.hostedZone }
        : undefined;
    this.api = new BureauApi(this, 'Api', {
      ...(settings.apiThrottle ?? {}),
      ...(settings.accessLogRetentionDays ? { logRetention: settings.accessLogRetentionDays as RetentionDays } : {}),
      closeExecuteApiEndpoint: privateName !== undefined,
    });
    const privateOrigin = privateName && new PrivateOrigin(this, 'PrivateOrigin', { api: this.api, ...privateName });
    const alarms = new Alarms(this, 'Alarms', {
      emails: settings.alarms?.emails ?? [],
      // An alarm notifies topics of its own region only; the edge monitoring stack takes those of us-east-1.
      topicArns: settings.alarms ? topicsIn(settings.alarms, this.region) : [],
    });
    this.alarms = alarms;
    const eventSources = new EventSources(this, 'EventSources', { tables: this.tables, queues: this.queues, alarms });
    const edge = 'parameters' in props.edge ? readEdgeParameters(this, props.edge, settings.edge) : props.edge;
    this.frontDoor = new FrontDoor(this, 'FrontDoor', {
      api: privateOrigin ? { privateDomainName: privateOrigin.domainName } : { endpoint: this.api.url },
      repositoryRoot,
      webAclArn: edge.webAclArn,
      originSecretRevision: settings.edge?.originSecretRevision ?? 1,
      ...(settings.edge?.domainName && (edge.certificate || settings.edge.certificateArn)
        ? {
            domain: {
              name: settings.edge.domainName,
              certificate: edge.certificate ?? Certificate.fromCertificateArn(this, 'Certificate', settings.edge.certificateArn as string),
              ...(settings.edge.hostedZone ? { hostedZone: settings.edge.hostedZone } : {}),
            },
          }
        : {}),
    });
    // CloudFront moves to the private name only once the name answers: mapped to the API and in DNS.
    if (privateOrigin) this.frontDoor.distribution.node.addDependency(privateOrigin);

    if ('parameters' in props.edge) {
      new EdgeParameterWriter(this, 'DistributionIdParameter', {
        name: props.edge.parameters.distributionId,
        value: this.frontDoor.distribution.distributionId,
        description: 'Bureau: the CloudFront distribution the edge monitoring stack watches and logs',
      });
    }

    if (settings.egress?.fixedAddresses) {
      this.deliveryEgress = new DeliveryEgress(this, 'DeliveryEgress', {
        addresses: settings.egress.addresses,
        flowLogRetention: (settings.functionLogRetentionDays ?? 30) as RetentionDays,
      });
      new CfnOutput(this, outputIds.deliveryAddresses, {
        value: this.deliveryEgress.publicAddresses,
        description: 'The addresses webhook deliveries come from, for subscribers to allowlist',
      });
    }

    const built = new Map<string, BureauFunction>();
    for (const spec of props.functions ?? catalogue) {
      const fn = new BureauFunction(this, spec.id, {
        entry: join(repositoryRoot, spec.entry),
        description: spec.description,
        projectRoot: repositoryRoot,
        memorySize: spec.memoryMb ?? FUNCTION_DEFAULTS.memoryMb,
        timeout: Duration.seconds(spec.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds),
        ...(spec.fixedEgress && this.deliveryEgress ? { vpc: this.deliveryEgress.vpc } : {}),
        ...(settings.functionLogRetentionDays ? { logRetention: settings.functionLogRetentionDays as RetentionDays } : {}),
        environment: {
          TOKEN_ISSUER: settings.tokenIssuer ?? DEFAULT_TOKEN_ISSUER,
          TOKEN_AUDIENCE: settings.tokenAudience ?? DEFAULT_TOKEN_AUDIENCE,
          [DELIVERY_PORTS_VARIABLE]: (settings.egress?.ports ?? DEFAULT_DELIVERY_PORTS).join(','),
        },
      });
      for (const grant of spec.tables) {
        fn.bindTable({ table: this.tables.of(grant.table), access: grant.access, writeKeyPrefixes: grant.writeKeyPrefixes });
      }
      if (spec.signingKey === 'sign') this.signingKey.grantSign(fn);
      if (spec.signingKey === 'rotate') this.signingKey.rotateWith(fn);
      if (spec.webhookSecrets) this.webhookSecretsKey.grant(fn, spec.webhookSecrets);
      for (const grant of spec.queues ?? []) {
        const { queue } = this.queues.of(grant.queue);
        fn.addEnvironment(grant.queue.envVar, queue.queueUrl);
        if (grant.access === 'send') queue.grantSendMessages(fn);
        else queue.grantConsumeMessages(fn);
      }
      for (const source of spec.eventSources ?? []) eventSources.connect(fn, source);
      for (const route of spec.routes) this.api.addRoute(route, fn);
      if (spec.routes.length > 0) {
        fn.addEnvironment('ORIGIN_SECRET_ARN', this.frontDoor.originSecret.secretArn);
        fn.addToRolePolicy(
          new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.frontDoor.originSecret.secretArn] }),
        );
      }
      // A function behind a route fails as the API does: the API's error rate pages for all of them.
      if (spec.routes.length === 0) alarms.watchFunction(fn, Duration.seconds(spec.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds));
      built.set(spec.id, fn);
    }
    this.functions = built;
    this.signingKey.fenceOff(settings.signingKeyAdministrators ?? []);
    alarms.watchApi(this.api.stage);
    alarms.watchDeliverySuccess();
    alarms.watchAccountConcurrency();

    // The origin the browser sees: sign-in checks requests against it, passkeys are scoped to it.
    built.get('workspace')?.addEnvironment('WORKSPACE_ORIGIN', this.frontDoor.origin);
    new CfnOutput(this, outputIds.workspaceUrl, {
      value: `${this.frontDoor.origin}/workspace/`,
      description: 'The client workspace; the API is served on the same origin',
    });
    new CfnOutput(this, outputIds.apiUrl, {
      value: this.frontDoor.origin,
      description: 'Base URL of the API, behind CloudFront and AWS WAF',
    });
    new CfnOutput(this, outputIds.distributionDomain, {
      value: this.frontDoor.distribution.distributionDomainName,
      description: "CloudFront's own name: point a CNAME for the API's domain here when its DNS is not in Route 53",
    });
    new CfnOutput(this, outputIds.executeApiAddress, {
      value: privateOrigin
        ? "Closed: the HTTP API's execute-api address is disabled; CloudFront reaches the API by a private custom domain."
        : `Open: ${this.api.url} takes requests that never meet AWS WAF. The functions refuse each (403) in about a millisecond, ` +
          `but each still costs an API Gateway request and a Lambda run, and spends its route's throttle ` +
          `(${this.api.throttle.rateLimit} requests a second, ${this.api.throttle.burstLimit} at once), which the real callers share: ` +
          'anyone who finds the address can slow the API for everyone. Close it by giving the stage a Route 53 zone ' +
          '(edge.domainName and edge.hostedZone in infra/stages.json).',
      description: "Whether the HTTP API's execute-api address can be called without passing CloudFront and AWS WAF",
    });
    for (const table of this.tables.all) {
      new CfnOutput(this, outputIds.tableName(table.definition.id), {
        value: table.tableName,
        description: `The ${table.definition.id} table`,
      });
      alarms.watchTable(table, table.definition.id === companiesTable.id ? { throttledOnPurpose: REGISTER_LOAD_THROTTLES } : {});
    }
    for (const queue of this.queues.all) {
      new CfnOutput(this, outputIds.queueUrl(queue.definition.id), {
        value: queue.queue.queueUrl,
        description: `The ${queue.definition.id} queue`,
      });
      new CfnOutput(this, outputIds.deadLetterQueueUrl(queue.definition.id), {
        value: queue.deadLetterQueue.queueUrl,
        description: `Where ${queue.definition.id} messages go after their last attempt`,
      });
      alarms.watchDeadLetterQueue(
        `${queue.definition.id}Queue`,
        queue.deadLetterQueue,
        `A ${queue.definition.id} message`,
        // A parked stream failure pointer has the stream's 24 hours to be replayed; a parked delivery has days.
        queue.definition.id === streamFailuresQueue.id ? 'StreamReplayAtRisk' : 'DeliveriesDeadLettered',
      );
      alarms.watchBacklog(
        `${queue.definition.id}Queue`,
        queue.queue,
        BACKLOG_ALARM[queue.definition.id] ?? 1_000,
        `${queue.definition.id} messages`,
      );
      alarms.watchQueueAges(queue.definition, queue.queue, queue.deadLetterQueue);
    }
    this.registerImport = new RegisterImport(this, 'RegisterImport', {
      specs: registerImportFunctions,
      tables: this.tables,
      alarms,
      repositoryRoot,
      environment: { [DELIVERY_PORTS_VARIABLE]: (settings.egress?.ports ?? DEFAULT_DELIVERY_PORTS).join(',') },
      ...(settings.functionLogRetentionDays ? { logRetention: settings.functionLogRetentionDays as RetentionDays } : {}),
    });
    const registerFunction = (id: string) => {
      const fn = this.registerImport.functions.get(id);
      if (!fn) throw new Error(`The register feeds need the ${id} function of the catalogue`);
      return fn;
    };
    const feeds = settings.registerFeeds ?? DEFAULT_REGISTER_FEEDS;
    this.registerDownload = new RegisterDownload(this, 'RegisterDownload', {
      fn: registerFunction('registerDownload'),
      stateMachine: this.registerImport.stateMachine,
      url: feeds.croCompaniesUrl,
    });
    this.registerStream = new RegisterStream(this, 'RegisterStream', {
      fn: registerFunction('registerStream'),
      streams: feeds.companiesHouseStreams,
      alarms,
    });
    this.accountsImport = new AccountsImport(this, 'AccountsImport', {
      specs: accountsImportFunctions,
      tables: this.tables,
      alarms,
      bucket: this.registerImport.bucket,
      repositoryRoot,
      environment: { [DELIVERY_PORTS_VARIABLE]: (settings.egress?.ports ?? DEFAULT_DELIVERY_PORTS).join(',') },
      ...(settings.functionLogRetentionDays ? { logRetention: settings.functionLogRetentionDays as RetentionDays } : {}),
    });
    new CfnOutput(this, 'AccountsImportStateMachineArn', {
      value: this.accountsImport.stateMachine.stateMachineArn,
      description: 'The state machine that stores the figures of an accounts archive uploaded under accounts/ (docs/deploy.md)',
    });
    new CfnOutput(this, 'AccountsDownloadFunctionName', {
      value: this.accountsImport.functions.get('accountsDownload')?.functionName ?? '',
      description: 'Fetches Accounts Data Product archives and starts their import; invoke it with {"archive": "<name>"} for one',
    });
    new CfnOutput(this, outputIds.streamKeySecretArn, {
      value: this.registerStream.secret.secretArn,
      description: 'Put the Companies House streaming API key here (docs/deploy.md); the stack creates it empty',
    });
    new CfnOutput(this, outputIds.registerUploadsBucket, {
      value: this.registerImport.bucket.bucketName,
      description: 'Where `bureau companies import --stack` uploads a register file',
    });
    new CfnOutput(this, outputIds.registerImportStateMachineArn, {
      value: this.registerImport.stateMachine.stateMachineArn,
      description: 'The state machine that loads an uploaded register file into the companies table',
    });
    // Pages an import causes by design wait while one runs: its chunks and sweep are its work.
    alarms.watchPlannedWork(
      this.registerImport.stateMachine,
      ['registerBatch', 'registerSweep'].flatMap((id) => this.registerImport.functions.get(id) ?? []),
    );
    alarms.raisePages();
    const dashboard = new ServiceDashboard(this, 'Dashboard', {
      stage: this.api.stage,
      functions: [...built.values()],
      streamConsumer: [...built.values()].find((fn) =>
        (props.functions ?? catalogue).find((spec) => spec.id === fn.node.id)?.eventSources?.some((source) => source.kind === 'stream'),
      ),
      queues: this.queues.all.map((queue) => ({ name: queue.definition.id, queue: queue.queue, deadLetters: queue.deadLetterQueue })),
      alarms,
      registerStreams: feeds.companiesHouseStreams,
      tables: this.tables.all,
      ...(edge.webAclName ? { webAclName: edge.webAclName } : {}),
    });
    new CfnOutput(this, outputIds.signingKeySecretArn, {
      value: this.signingKey.secret.secretArn,
      description: 'Secret holding the token signing keys',
    });
    new CfnOutput(this, outputIds.webhookSecretsKeyArn, {
      value: this.webhookSecretsKey.key.keyArn,
      description: 'KMS key that seals webhook signing secrets at rest',
    });
    new CfnOutput(this, outputIds.alarmTopicArn, {
      value: alarms.paging.topicArn,
      description: 'Pages: subscribe the person on call (docs/operations.md, "Alarms")',
    });
    new CfnOutput(this, outputIds.ticketTopicArn, {
      value: alarms.tickets.topicArn,
      description: 'Tickets: subscribe a mailbox or a ticket queue (docs/operations.md, "Alarms")',
    });
    new CfnOutput(this, outputIds.dashboardUrl, {
      value: `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${dashboard.dashboard.dashboardName}`,
      description: 'The service dashboard in the CloudWatch console',
    });
  }
}

/** The web ACL and the edge stack's certificate, read again whenever what they depend on changes. */
function readEdgeParameters(scope: Construct, edge: EdgeParameters, settings: EdgeSettings | undefined): EdgeReferences {
  const reader = new EdgeParameterReader(scope, 'EdgeParameters');
  const certificateArn = edge.certificateFromEdge
    ? reader.read('CertificateArn', edge.parameters.certificateArn, `${settings?.domainName}@${settings?.hostedZone?.id}`)
    : undefined;
  return {
    webAclArn: reader.read('WebAclArn', edge.parameters.webAclArn, edge.webAclName),
    webAclName: edge.webAclName,
    ...(certificateArn ? { certificate: Certificate.fromCertificateArn(scope, 'EdgeCertificate', certificateArn) } : {}),
  };
}

import { readFileSync } from 'node:fs';
import { isStreamName, type StreamName } from '../shared/register/stream/stream-events';
import { DEFAULT_DELIVERY_PORTS } from '../shared/webhooks/endpoint-url';

/** CloudFront reads web ACLs and certificates from this region only, and publishes its metrics there. */
export const EDGE_REGION = 'us-east-1';

/**
 * What differs between deployments of the service, kept in the repository (infra/stages.json) so a
 * later `cdk deploy` cannot forget it: a redeploy without the issuer would reject every outstanding
 * token, and one without the alarm address would drop the alarm subscription.
 */
export interface StageSettings {
  readonly stackName: string;
  /** `iss` of access tokens: changing it rejects every outstanding token. */
  readonly tokenIssuer: string;
  readonly tokenAudience: string;
  /** Where the stage's alarms go. */
  readonly alarms: AlarmDestinations;
  /** A production stage refuses to build unless its alarms reach someone in both regions they live in. */
  readonly production: boolean;
  /** API Gateway applies these to every route of the stage (each route on its own), not to the API as a whole. */
  readonly apiThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly functionLogRetentionDays: number;
  readonly accessLogRetentionDays: number;
  readonly signingKeyRotationDays: number;
  /** IAM role ARNs that may read and replace the signing keys (for `bureau keys revoke`); no one else but the functions can. */
  readonly signingKeyAdministrators: readonly string[];
  /** Where the data lives: eu-west-2 (London) for GB, eu-west-1 (Ireland) for IE, by the operator's choice. */
  readonly region: string;
  readonly edge: EdgeSettings;
  readonly egress: EgressSettings;
  /** Where register changes come from on AWS; absent, DEFAULT_REGISTER_FEEDS. */
  readonly registerFeeds?: RegisterFeedSettings;
  /** An AWS Backup vault, best in another account, that receives a copy of each daily table backup; absent, no copy. */
  readonly backupCopyVaultArn?: string;
  /**
   * Warm throughput of the companies table (read and write units a second it serves at once, on demand):
   * set before the first load of a whole register so the import is not throttled while the table's
   * partitions split; a one-off charge, kept afterwards. Absent: DynamoDB's own warm-up.
   */
  readonly companiesWarmThroughput?: CompaniesWarmThroughput;
}

/**
 * Alarms live in the stage's region (the service) and in us-east-1 (CloudFront and its firewall
 * publish their metrics there only), each region with a topic of its own.
 */
export interface AlarmDestinations {
  /** Subscribed to the alarm topics of both regions; AWS asks each address to confirm once. */
  readonly emails: readonly string[];
  /**
   * SNS topics of the operator's own (a pager's, or the one an AWS Chatbot Slack or Teams channel
   * listens on) that every alarm also notifies. An alarm can only notify a topic in its own region,
   * so each topic serves the alarms of the region in its ARN: the stage's region or us-east-1.
   */
  readonly topicArns: readonly string[];
}

/** The live Companies House streams and the scheduled CRO re-import. */
export interface RegisterFeedSettings {
  /** Streams consumed, each on its own schedule and connection; [] consumes none. */
  readonly companiesHouseStreams: readonly StreamName[];
  /** The CRO companies file the weekly IE re-import fetches, https only; null schedules no re-import. */
  readonly croCompaniesUrl: string | null;
}

/**
 * The streams whose events carry facts the profile derives from (status, accounts and confirmation
 * dates, charges, insolvency, officers, PSCs); the other three (PSC statements, disqualified
 * officers, exemptions) feed nothing it shows yet, and each stream holds a connection all day.
 */
export const DEFAULT_REGISTER_FEEDS: RegisterFeedSettings = {
  companiesHouseStreams: ['companies', 'filings', 'charges', 'insolvency-cases', 'officers', 'persons-with-significant-control'],
  // The CRO portal's CSV export of its Company Records resource (CKAN datastore dump), CC BY 4.0.
  croCompaniesUrl: 'https://opendata.cro.ie/datastore/dump/3fef41bc-b8f4-4b10-8434-ce51c29b1bba?format=csv',
};

/** The public entry: CloudFront with AWS WAF, and the API's own domain if it has one. */
export interface EdgeSettings {
  /** e.g. api.bureau.example; null serves the API on its *.cloudfront.net name. */
  readonly domainName: string | null;
  /** The Route 53 zone of domainName: the certificate is validated and the alias records are written in it. */
  readonly hostedZone: { readonly id: string; readonly name: string } | null;
  /** An ACM certificate in us-east-1 for domainName, when its DNS is not in Route 53 (then point a CNAME at the distribution). */
  readonly certificateArn: string | null;
  /** Requests one address may make in any 5 minutes before AWS WAF answers 429. */
  readonly requestsPerAddressPer5Minutes: number;
  /** Sign-in attempts (password, passkey, invitation) one address may make in any 5 minutes. */
  readonly signInsPerAddressPer5Minutes: number;
  /** Raise after putting a new origin secret value, so CloudFront reads it on the next deploy. */
  readonly originSecretRevision: number;
}

/** Webhook deliveries from fixed public addresses that subscribers can allowlist. */
export interface EgressSettings {
  /** Off: deliveries leave from Lambda's shared addresses. On: through NAT gateways with Elastic IPs (about $35 a month each). */
  readonly fixedAddresses: boolean;
  /** NAT gateways (one per availability zone, each with its address) when fixedAddresses is on. */
  readonly addresses: number;
  /** Destination ports a webhook URL may name: 443 and 8443 unless the operator allows more. */
  readonly ports: readonly number[];
}

export interface CompaniesWarmThroughput {
  readonly readUnitsPerSecond: number;
  readonly writeUnitsPerSecond: number;
}

/** What DynamoDB gives an on-demand table already, and the most this setting asks for (the account's table quota). */
export const WARM_THROUGHPUT_RANGE = {
  readUnitsPerSecond: { min: 12_000, max: 40_000 },
  writeUnitsPerSecond: { min: 4_000, max: 40_000 },
} as const;

export class StageSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StageSettingsError';
  }
}

export const STAGES_FILE = new URL('./stages.json', import.meta.url);

/**
 * The only retention periods CloudWatch Logs accepts, as the CDK's RetentionDays lists them (9999:
 * never expire). Written out so that reading stage settings loads no CDK: the CLI's preflight reads
 * them too. test/infra/retention-days.test.ts holds this list to the CDK's.
 */
export const LOG_RETENTION_DAYS: readonly number[] = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653, 9999,
];
const RETENTION_DAYS = new Set(LOG_RETENTION_DAYS);

/** The settings of one stage, checked: a typo fails the synth with the field it is in, not a deploy. */
export function stageSettings(stage: string, source: string = readFileSync(STAGES_FILE, 'utf8')): StageSettings {
  const all = JSON.parse(source) as Record<string, unknown>;
  const raw = all[stage];
  if (typeof raw !== 'object' || raw === null) {
    throw new StageSettingsError(`No stage "${stage}" in infra/stages.json; the stages are: ${Object.keys(all).join(', ')}.`);
  }
  const settings = raw as Record<string, unknown>;
  const where = (field: string) => `infra/stages.json: ${stage}.${field}`;
  const text = (field: string, pattern: RegExp) => {
    const value = settings[field];
    if (typeof value !== 'string' || !pattern.test(value)) throw new StageSettingsError(`${where(field)} must match ${pattern}`);
    return value;
  };
  const whole = (field: string, value: unknown, min: number, max: number) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new StageSettingsError(`${where(field)} must be a whole number from ${min} to ${max}`);
    }
    return value;
  };
  const retention = (field: string) => {
    const days = whole(field, settings[field], 1, 3653);
    if (!RETENTION_DAYS.has(days))
      throw new StageSettingsError(`${where(field)} must be a retention CloudWatch Logs offers, e.g. 14, 30, 90, 365`);
    return days;
  };
  const throttle = settings.apiThrottle as Record<string, unknown> | undefined;
  if ('alarmEmail' in settings) {
    throw new StageSettingsError(`${where('alarmEmail')} is now alarms.emails: "alarms": { "emails": ["ops@…"], "topicArns": [] }`);
  }
  if (typeof settings.production !== 'boolean') throw new StageSettingsError(`${where('production')} must be true or false`);
  const region = text('region', /^[a-z]{2}(-[a-z]+)+-\d$/);
  const alarms = alarmDestinations(settings.alarms, region, where);
  if (settings.production && !reachesBothRegions(alarms, region)) {
    throw new StageSettingsError(
      `${where('alarms')} names no one, and a production stage's alarms must reach someone: add an address to alarms.emails, ` +
        `or SNS topic ARNs in both ${region} and ${EDGE_REGION} (an AWS Chatbot channel's topic, a pager's) to alarms.topicArns`,
    );
  }
  return {
    stackName: text('stackName', /^[A-Za-z][A-Za-z0-9-]{0,127}$/),
    tokenIssuer: text('tokenIssuer', /^https:\/\/\S+$/),
    tokenAudience: text('tokenAudience', /^\S+$/),
    alarms,
    production: settings.production,
    apiThrottle: {
      rateLimit: whole('apiThrottle.rateLimit', throttle?.rateLimit, 1, 10_000),
      burstLimit: whole('apiThrottle.burstLimit', throttle?.burstLimit, 1, 5_000),
    },
    functionLogRetentionDays: retention('functionLogRetentionDays'),
    accessLogRetentionDays: retention('accessLogRetentionDays'),
    signingKeyRotationDays: whole('signingKeyRotationDays', settings.signingKeyRotationDays, 1, 365),
    signingKeyAdministrators: roleArns('signingKeyAdministrators', settings.signingKeyAdministrators, where),
    region,
    edge: edgeSettings(settings.edge, where, whole),
    egress: egressSettings(settings.egress, where, whole),
    ...(settings.registerFeeds === undefined ? {} : { registerFeeds: registerFeedSettings(settings.registerFeeds, where) }),
    ...(settings.backupCopyVaultArn == null ? {} : { backupCopyVaultArn: backupVaultArn(settings.backupCopyVaultArn, where) }),
    ...(settings.companiesWarmThroughput == null
      ? {}
      : { companiesWarmThroughput: warmThroughput(settings.companiesWarmThroughput, where, whole) }),
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:([a-z]{2}(?:-[a-z]+)+-\d):\d{12}:[\w-]{1,256}$/;

function alarmDestinations(value: unknown, region: string, where: Where): AlarmDestinations {
  if (typeof value !== 'object' || value === null) {
    throw new StageSettingsError(`${where('alarms')} must be { "emails": [], "topicArns": [] }`);
  }
  const { emails, topicArns } = value as Record<string, unknown>;
  if (!Array.isArray(emails) || !emails.every((email) => typeof email === 'string' && EMAIL.test(email))) {
    throw new StageSettingsError(`${where('alarms.emails')} must be a list of e-mail addresses, [] for none`);
  }
  if (
    !Array.isArray(topicArns) ||
    !topicArns.every((arn) => typeof arn === 'string' && [region, EDGE_REGION].includes(TOPIC_ARN.exec(arn)?.[1] ?? ''))
  ) {
    throw new StageSettingsError(
      `${where('alarms.topicArns')} must be a list of SNS topic ARNs in ${region} or ${EDGE_REGION}, the regions the stage's alarms live in; [] for none`,
    );
  }
  return { emails, topicArns };
}

/** The regions a stage's alarms live in: its own and CloudFront's. */
export function alarmRegions(region: string): readonly string[] {
  return region === EDGE_REGION ? [region] : [region, EDGE_REGION];
}

/** The operator's topics an alarm in this region may notify. */
export function topicsIn(destinations: AlarmDestinations, region: string): string[] {
  return destinations.topicArns.filter((arn) => TOPIC_ARN.exec(arn)?.[1] === region);
}

function reachesBothRegions(destinations: AlarmDestinations, region: string): boolean {
  return destinations.emails.length > 0 || alarmRegions(region).every((inRegion) => topicsIn(destinations, inRegion).length > 0);
}

function registerFeedSettings(value: unknown, where: Where): RegisterFeedSettings {
  if (typeof value !== 'object' || value === null) throw new StageSettingsError(`${where('registerFeeds')} must be an object`);
  const feeds = value as Record<string, unknown>;
  const streams = feeds.companiesHouseStreams;
  if (
    !Array.isArray(streams) ||
    !streams.every((stream) => typeof stream === 'string' && isStreamName(stream)) ||
    new Set(streams).size !== streams.length
  ) {
    throw new StageSettingsError(
      `${where('registerFeeds.companiesHouseStreams')} must list Companies House streams once each, such as ["companies", "filings"]`,
    );
  }
  const url = feeds.croCompaniesUrl ?? null;
  if (url !== null && (typeof url !== 'string' || !isHttpsUrl(url))) {
    throw new StageSettingsError(`${where('registerFeeds.croCompaniesUrl')} must be an https URL, or null for no scheduled IE re-import`);
  }
  return { companiesHouseStreams: streams as StreamName[], croCompaniesUrl: url as string | null };
}

function warmThroughput(
  value: unknown,
  where: Where,
  whole: (field: string, value: unknown, min: number, max: number) => number,
): CompaniesWarmThroughput {
  if (typeof value !== 'object' || value === null) {
    throw new StageSettingsError(
      `${where('companiesWarmThroughput')} must be { "readUnitsPerSecond": …, "writeUnitsPerSecond": … }, or null for DynamoDB's own`,
    );
  }
  const units = value as Record<string, unknown>;
  const field = (name: keyof CompaniesWarmThroughput) =>
    whole(`companiesWarmThroughput.${name}`, units[name], WARM_THROUGHPUT_RANGE[name].min, WARM_THROUGHPUT_RANGE[name].max);
  return { readUnitsPerSecond: field('readUnitsPerSecond'), writeUnitsPerSecond: field('writeUnitsPerSecond') };
}

function backupVaultArn(value: unknown, where: Where): string {
  if (typeof value !== 'string' || !/^arn:aws[a-z-]*:backup:[a-z]{2}(-[a-z]+)+-\d:\d{12}:backup-vault:[A-Za-z0-9_.-]{2,50}$/.test(value)) {
    throw new StageSettingsError(
      `${where('backupCopyVaultArn')} must be an AWS Backup vault ARN (arn:aws:backup:<region>:<account>:backup-vault:<name>), or null for no copy`,
    );
  }
  return value;
}

function isHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

type Where = (field: string) => string;
type Whole = (field: string, value: unknown, min: number, max: number) => number;

function edgeSettings(value: unknown, where: Where, whole: Whole): EdgeSettings {
  if (typeof value !== 'object' || value === null) throw new StageSettingsError(`${where('edge')} must be an object`);
  const edge = value as Record<string, unknown>;
  const domainName = edge.domainName ?? null;
  if (domainName !== null && (typeof domainName !== 'string' || !/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/.test(domainName))) {
    throw new StageSettingsError(`${where('edge.domainName')} must be a lower-case domain name such as api.bureau.example, or null`);
  }
  const zone = (edge.hostedZone ?? null) as { id?: unknown; name?: unknown } | null;
  const zoneIsValid =
    zone === null ||
    (typeof zone === 'object' &&
      typeof zone.id === 'string' &&
      /^Z[A-Z0-9]{1,31}$/.test(zone.id) &&
      typeof zone.name === 'string' &&
      typeof domainName === 'string' &&
      `.${domainName}`.endsWith(`.${zone.name}`));
  if (!zoneIsValid) {
    throw new StageSettingsError(`${where('edge.hostedZone')} must be null or { "id": "Z…", "name": "<a parent of edge.domainName>" }`);
  }
  const certificateArn = edge.certificateArn ?? null;
  if (
    certificateArn !== null &&
    (typeof certificateArn !== 'string' || !/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/.test(certificateArn))
  ) {
    throw new StageSettingsError(
      `${where('edge.certificateArn')} must be null or an ACM certificate ARN in us-east-1, where CloudFront reads certificates`,
    );
  }
  if (domainName !== null && zone === null && certificateArn === null) {
    throw new StageSettingsError(
      `${where('edge.domainName')} needs edge.hostedZone (a certificate is made and validated there) or edge.certificateArn`,
    );
  }
  if (domainName === null && (zone !== null || certificateArn !== null)) {
    throw new StageSettingsError(`${where('edge.domainName')} must be set when edge.hostedZone or edge.certificateArn is`);
  }
  return {
    domainName: domainName as string | null,
    hostedZone: zone as EdgeSettings['hostedZone'],
    certificateArn: certificateArn as string | null,
    // AWS WAF counts from 10 requests in a window.
    requestsPerAddressPer5Minutes: whole('edge.requestsPerAddressPer5Minutes', edge.requestsPerAddressPer5Minutes, 10, 2_000_000_000),
    signInsPerAddressPer5Minutes: whole('edge.signInsPerAddressPer5Minutes', edge.signInsPerAddressPer5Minutes, 10, 2_000_000_000),
    originSecretRevision: whole('edge.originSecretRevision', edge.originSecretRevision, 1, 1_000_000),
  };
}

function egressSettings(value: unknown, where: Where, whole: Whole): EgressSettings {
  if (typeof value !== 'object' || value === null) throw new StageSettingsError(`${where('egress')} must be an object`);
  const egress = value as Record<string, unknown>;
  if (typeof egress.fixedAddresses !== 'boolean') throw new StageSettingsError(`${where('egress.fixedAddresses')} must be true or false`);
  const ports = egress.ports ?? [...DEFAULT_DELIVERY_PORTS];
  if (!Array.isArray(ports) || ports.length === 0 || !ports.every((port) => Number.isInteger(port) && port >= 1 && port <= 65_535)) {
    throw new StageSettingsError(`${where('egress.ports')} must be a list of port numbers, such as [443, 8443]`);
  }
  return { fixedAddresses: egress.fixedAddresses, addresses: whole('egress.addresses', egress.addresses, 1, 3), ports };
}

function roleArns(field: string, value: unknown, where: Where): string[] {
  if (
    !Array.isArray(value) ||
    value.some((arn) => typeof arn !== 'string' || !/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/.test(arn))
  ) {
    throw new StageSettingsError(`${where(field)} must be a list of IAM role ARNs (arn:aws:iam::<account>:role/<name>)`);
  }
  return value as string[];
}

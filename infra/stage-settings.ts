import { readFileSync } from 'node:fs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

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
  /** Subscribed to the alarm topic; null for none. */
  readonly alarmEmail: string | null;
  /** API Gateway applies these to every route of the stage (each route on its own), not to the API as a whole. */
  readonly apiThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly functionLogRetentionDays: number;
  readonly accessLogRetentionDays: number;
  readonly signingKeyRotationDays: number;
  /** IAM role ARNs that may read and replace the signing keys (for `bureau keys revoke`); no one else but the functions can. */
  readonly signingKeyAdministrators: readonly string[];
}

export class StageSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StageSettingsError';
  }
}

export const STAGES_FILE = new URL('./stages.json', import.meta.url);

/** CloudWatch Logs accepts only these retention periods. */
const RETENTION_DAYS = new Set(Object.values(RetentionDays).filter((value): value is number => typeof value === 'number'));

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
  const alarmEmail = settings.alarmEmail ?? null;
  if (alarmEmail !== null && (typeof alarmEmail !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(alarmEmail))) {
    throw new StageSettingsError(`${where('alarmEmail')} must be an e-mail address or null`);
  }
  return {
    stackName: text('stackName', /^[A-Za-z][A-Za-z0-9-]{0,127}$/),
    tokenIssuer: text('tokenIssuer', /^https:\/\/\S+$/),
    tokenAudience: text('tokenAudience', /^\S+$/),
    alarmEmail,
    apiThrottle: {
      rateLimit: whole('apiThrottle.rateLimit', throttle?.rateLimit, 1, 10_000),
      burstLimit: whole('apiThrottle.burstLimit', throttle?.burstLimit, 1, 5_000),
    },
    functionLogRetentionDays: retention('functionLogRetentionDays'),
    accessLogRetentionDays: retention('accessLogRetentionDays'),
    signingKeyRotationDays: whole('signingKeyRotationDays', settings.signingKeyRotationDays, 1, 365),
    signingKeyAdministrators: roleArns('signingKeyAdministrators', settings.signingKeyAdministrators, where),
  };
}

function roleArns(field: string, value: unknown, where: (field: string) => string): string[] {
  if (
    !Array.isArray(value) ||
    value.some((arn) => typeof arn !== 'string' || !/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/.test(arn))
  ) {
    throw new StageSettingsError(`${where(field)} must be a list of IAM role ARNs (arn:aws:iam::<account>:role/<name>)`);
  }
  return value as string[];
}

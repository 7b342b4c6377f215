import { readFileSync } from 'node:fs';
import { GetAccountSettingsCommand, type GetAccountSettingsCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import { GetParameterCommand, type GetParameterCommandOutput, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import type { Command } from 'commander';
import { functions as catalogue, type FunctionSpec, registerImportFunctions } from '../../infra/catalogue';
import { BATCH_CONCURRENCY, SWEEP_CONCURRENCY } from '../../infra/register-import-concurrency';
import { DEFAULT_REGISTER_FEEDS, EDGE_REGION, STAGES_FILE, StageSettingsError, stageSettings } from '../../infra/stage-settings';
import type { CliIo } from '../io';
import { UsageError } from '../usage-error';

/** Where `cdk bootstrap` records its version, under the CDK's default qualifier (cdk.json sets no other). */
export const BOOTSTRAP_VERSION_PARAMETER = '/cdk-bootstrap/hnb659fds/version';
/** The oldest bootstrap the synthesized templates accept: their CheckBootstrapVersion rule refuses 1 to 5. */
export const MIN_BOOTSTRAP_VERSION = 6;
/** Service Quotas' code for Lambda's concurrent executions. */
export const LAMBDA_CONCURRENCY_QUOTA_CODE = 'L-B99A9384';

/**
 * Partitions a new on-demand table starts with (4,000 writes a second), each a shard of the companies
 * stream that Lambda reads with one execution at a time; a table grown by a big import has more.
 */
const COMPANIES_STREAM_SHARDS = 4;
/** An API request holds an execution about 30 ms warm; 100 ms leaves room for cold starts and slow calls. */
const API_SECONDS_PER_REQUEST = 0.1;
const MIN_API_EXECUTIONS = 5;
/** The CDK's own functions a deploy runs at once: the workspace files' copies, the buckets' emptier, a parameter read. */
const DEPLOY_EXECUTIONS = 3;

/** The Lambda and SSM calls the checks make, in a region; tests give their own. */
export interface PreflightClients {
  lambda(region: string): { send(command: GetAccountSettingsCommand): Promise<GetAccountSettingsCommandOutput> };
  ssm(region: string): { send(command: GetParameterCommand): Promise<GetParameterCommandOutput> };
}

export interface PreflightDependencies {
  readonly clients: PreflightClients;
  /** infra/stages.json's text; the file itself unless a test gives its own. */
  readonly stages?: string;
}

/** What the command reads of the CLI's context: where to write, and what a test gives in place of AWS. */
interface PreflightContext {
  readonly io: CliIo;
  readonly preflight?: PreflightDependencies;
}

/** The SDK's clients, closed after the checks so that no idle connection holds the CLI open. */
function sdkClients(): PreflightClients & { close(): void } {
  const opened: { destroy(): void }[] = [];
  const kept = <T extends { destroy(): void }>(client: T): T => {
    opened.push(client);
    return client;
  };
  return {
    lambda: (region) => kept(new LambdaClient({ region })),
    ssm: (region) => kept(new SSMClient({ region })),
    close: () => {
      for (const client of opened) client.destroy();
    },
  };
}

/** One reason a stage's functions run at the same moment, and how many executions it holds then. */
export interface ConcurrencyNeed {
  readonly what: string;
  readonly executions: number;
}

interface StageShape {
  readonly apiThrottle: { readonly rateLimit: number };
  readonly registerFeeds?: { readonly companiesHouseStreams: readonly string[] };
}

/**
 * The Lambda executions a stage may hold at once, at worst: its register streams and queue consumers
 * at their caps, an import's batches, the companies stream, API traffic at the stage's throttle and
 * a deploy, all together. None of its functions reserves concurrency, so they share the account's
 * unreserved pool in the region with every other function there.
 */
export function concurrencyNeeds(
  stage: StageShape,
  defaults: { readonly streams: readonly string[]; readonly importBatches: number; readonly sweepSegments: number },
  specs: readonly FunctionSpec[] = [...catalogue, ...registerImportFunctions],
): ConcurrencyNeed[] {
  const streams = (stage.registerFeeds?.companiesHouseStreams ?? defaults.streams).length;
  const queueCaps = specs.flatMap((spec) =>
    (spec.eventSources ?? []).flatMap((source) => (source.kind === 'queue' ? [{ id: spec.id, cap: source.maxConcurrency }] : [])),
  );
  const api = Math.max(MIN_API_EXECUTIONS, Math.ceil(stage.apiThrottle.rateLimit * API_SECONDS_PER_REQUEST));
  return [
    { what: `Companies House streams: ${streams}, each one execution around the clock and two during a handover`, executions: streams * 2 },
    {
      what: `queue consumers at their caps (${queueCaps.map((queue) => `${queue.id} ${queue.cap}`).join(', ')})`,
      executions: queueCaps.reduce((sum, queue) => sum + queue.cap, 0),
    },
    {
      what: 'a register import: its batches or sweep segments at once, the split or summary, and the weekly CRO download',
      executions: Math.max(defaults.importBatches, defaults.sweepSegments) + 2,
    },
    { what: `the companies stream: one per shard, ${COMPANIES_STREAM_SHARDS} on a new table`, executions: COMPANIES_STREAM_SHARDS },
    { what: `API traffic: ${stage.apiThrottle.rateLimit} requests a second (the stage's throttle) at 100 ms each`, executions: api },
    { what: 'the signing-key rotation', executions: 1 },
    { what: "a deploy's own functions", executions: DEPLOY_EXECUTIONS },
  ];
}

export function total(needs: readonly ConcurrencyNeed[]): number {
  return needs.reduce((sum, need) => sum + need.executions, 0);
}

interface CheckResult {
  readonly passed: boolean;
  readonly name: string;
  readonly detail: string;
  /** What to do about a failure. */
  readonly remedy?: string;
  /** The executions the account leaves to functions that reserve none, when the check could read them. */
  readonly unreserved?: number;
}

/**
 * `bureau preflight --stage <name>`: before a deploy, checks what the deploy cannot fix by itself and
 * would otherwise fail on, or leave to fail later: the account's Lambda concurrency in the stage's
 * region against what the stage needs, and the CDK bootstrap in that region and in us-east-1. Each
 * check prints a line, and a failure what to do; any failure exits 1.
 */
export function registerPreflightCommand(program: Command, context: PreflightContext): void {
  program
    .command('preflight')
    .description("Before a deploy: check the account's Lambda concurrency and the CDK bootstrap for a stage of infra/stages.json")
    .requiredOption('--stage <name>', 'the stage of infra/stages.json to check, e.g. dev or prod')
    .addHelpText(
      'after',
      `
Reads the stage's region from infra/stages.json and calls, with the AWS credentials of the shell,
lambda:GetAccountSettings in that region and ssm:GetParameter (${BOOTSTRAP_VERSION_PARAMETER}) there and in us-east-1.

Example:
  $ bureau preflight --stage prod`,
    )
    .action(async (options: { stage: string }) => {
      const own = context.preflight ? undefined : sdkClients();
      try {
        await preflight(context, own ?? (context.preflight as PreflightDependencies).clients, options.stage.trim());
      } finally {
        own?.close();
      }
    });
}

async function preflight(context: PreflightContext, clients: PreflightClients, stageName: string): Promise<void> {
  const { io } = context;
  const source = context.preflight?.stages ?? readFileSync(STAGES_FILE, 'utf8');
  const readStage = (name: string) => stageSettings(name, source);
  let stage: ReturnType<typeof stageSettings>;
  try {
    stage = readStage(stageName);
  } catch (error) {
    if (error instanceof StageSettingsError) throw new UsageError(error.message);
    throw error;
  }
  const defaults = {
    streams: DEFAULT_REGISTER_FEEDS.companiesHouseStreams,
    importBatches: BATCH_CONCURRENCY,
    sweepSegments: SWEEP_CONCURRENCY,
  };
  const needs = concurrencyNeeds(stage, defaults);
  const needed = total(needs);

  io.out(`Preflight of stage ${stageName} (stack ${stage.stackName}, ${stage.region} and ${EDGE_REGION})`);
  const results: CheckResult[] = [];
  const report = (result: CheckResult) => {
    results.push(result);
    io.out(`${result.passed ? '✓' : '✗'} ${result.name.padEnd(30)} ${result.detail}`);
    if (!result.passed && result.remedy) io.out(`  → ${result.remedy}`);
  };

  const concurrency = await concurrencyCheck(clients, stage.region, needed);
  report(concurrency);
  for (const need of needs) io.out(`    ${String(need.executions).padStart(3)}  ${need.what}`);
  const neighbours = sharingRegion(readStage, stageName, stage.region, source);
  if (neighbours.length > 0) {
    const together = neighbours.reduce((sum, other) => sum + total(concurrencyNeeds(other.settings, defaults)), needed);
    const covered =
      concurrency.unreserved === undefined
        ? ''
        : together <= concurrency.unreserved
          ? ', which the account has'
          : `, more than the account's ${concurrency.unreserved}: raise the quota if they are`;
    io.out(
      `    ${together} with ${neighbours.map((other) => other.name).join(', ')}, in ${stage.region} too, if this account runs ${neighbours.length === 1 ? 'it' : 'them'}${covered}`,
    );
  }
  for (const region of [...new Set([stage.region, EDGE_REGION])]) report(await bootstrapCheck(clients, region));

  const failed = results.filter((result) => !result.passed);
  if (failed.length > 0) {
    throw new UsageError(
      `preflight of ${stageName} failed ${failed.length} of ${results.length} checks: ${failed.map((r) => r.name).join(', ')}`,
    );
  }
  io.out(`Preflight passed: deploy with npx cdk deploy --all -c stage=${stageName}`);
}

async function concurrencyCheck(clients: PreflightClients, region: string, needed: number): Promise<CheckResult> {
  const name = `Lambda concurrency, ${region}`;
  // 1,000 is Lambda's default quota, which AWS grants new accounts on request.
  const asked = Math.max(needed, 1000);
  const increase = `ask for ${asked}: aws service-quotas request-service-quota-increase --region ${region} --service-code lambda --quota-code ${LAMBDA_CONCURRENCY_QUOTA_CODE} --desired-value ${asked} (docs/deploy.md, "Quotas")`;
  try {
    const { AccountLimit: limit } = await clients.lambda(region).send(new GetAccountSettingsCommand({}));
    const quota = limit?.ConcurrentExecutions ?? 0;
    const unreserved = limit?.UnreservedConcurrentExecutions ?? quota;
    const detail = `${unreserved} unreserved of ${quota}; the stage needs ${needed} at most`;
    return unreserved >= needed
      ? { passed: true, name, detail, unreserved }
      : { passed: false, name, detail, remedy: increase, unreserved };
  } catch (error) {
    return { passed: false, name, detail: `could not read: ${reasonOf(error)}`, remedy: credentialsRemedy('lambda:GetAccountSettings') };
  }
}

async function bootstrapCheck(clients: PreflightClients, region: string): Promise<CheckResult> {
  const name = `CDK bootstrap, ${region}`;
  const bootstrap = `run npx cdk bootstrap aws://$(aws sts get-caller-identity --query Account --output text)/${region} (docs/deploy.md, step 2)`;
  try {
    const { Parameter } = await clients.ssm(region).send(new GetParameterCommand({ Name: BOOTSTRAP_VERSION_PARAMETER }));
    const version = Number(Parameter?.Value);
    if (!Number.isInteger(version)) {
      return {
        passed: false,
        name,
        detail: `${BOOTSTRAP_VERSION_PARAMETER} holds "${Parameter?.Value}", not a version`,
        remedy: bootstrap,
      };
    }
    return version >= MIN_BOOTSTRAP_VERSION
      ? { passed: true, name, detail: `version ${version}` }
      : {
          passed: false,
          name,
          detail: `version ${version}, older than the ${MIN_BOOTSTRAP_VERSION} the templates require`,
          remedy: bootstrap,
        };
  } catch (error) {
    if (error instanceof ParameterNotFound) return { passed: false, name, detail: 'not bootstrapped', remedy: bootstrap };
    return { passed: false, name, detail: `could not read: ${reasonOf(error)}`, remedy: credentialsRemedy('ssm:GetParameter') };
  }
}

/** The other stages of infra/stages.json in the same region: in one account they share its Lambda concurrency. */
function sharingRegion(
  readStage: (name: string) => StageShape & { region: string },
  stageName: string,
  region: string,
  source: string,
): { name: string; settings: StageShape }[] {
  const names = Object.keys(JSON.parse(source) as Record<string, unknown>).filter((name) => name !== stageName);
  return names.flatMap((name) => {
    try {
      const settings = readStage(name);
      return settings.region === region ? [{ name, settings }] : [];
    } catch {
      // A stage that does not build is not deployed next to this one.
      return [];
    }
  });
}

function credentialsRemedy(action: string): string {
  return `use credentials for the account that may call ${action} (check: aws sts get-caller-identity)`;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

import { readFileSync } from 'node:fs';
import { GetAccountSettingsCommand, type GetAccountSettingsCommandOutput } from '@aws-sdk/client-lambda';
import { GetParameterCommand, type GetParameterCommandOutput, ParameterNotFound } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { BOOTSTRAP_VERSION_PARAMETER, concurrencyNeeds, type PreflightClients, total } from '../../../cli/commands/preflight';
import { run } from '../../../cli/main';

/** Stages shaped like infra/stages.json's dev, with what the checks read changed. */
function stagesFile(): string {
  const dev = (JSON.parse(readFileSync(new URL('../../../infra/stages.json', import.meta.url), 'utf8')) as Record<string, object>).dev;
  const stage = (stackName: string, region: string, streams: string[], rateLimit: number) => ({
    ...dev,
    stackName,
    region,
    apiThrottle: { rateLimit, burstLimit: rateLimit * 2 },
    registerFeeds: { companiesHouseStreams: streams, croCompaniesUrl: null },
  });
  const six = ['companies', 'filings', 'charges', 'insolvency-cases', 'officers', 'persons-with-significant-control'];
  return JSON.stringify({
    small: stage('Bureau-small', 'eu-west-2', ['companies', 'filings'], 50),
    big: stage('Bureau-big', 'eu-west-2', six, 100),
    ireland: stage('Bureau-ireland', 'eu-west-1', ['companies'], 50),
    edge: stage('Bureau-edge-only', 'us-east-1', [], 50),
  });
}

interface AccountState {
  /** Lambda's answer in each region, or what it throws. */
  readonly concurrency?: Record<string, { ConcurrentExecutions: number; UnreservedConcurrentExecutions: number } | Error>;
  /** The bootstrap version parameter in each region; absent: not bootstrapped. */
  readonly bootstrap?: Record<string, string>;
}

function fakeAws(state: AccountState) {
  const calls: string[] = [];
  const clients: PreflightClients = {
    lambda: (region) => ({
      async send(command: GetAccountSettingsCommand): Promise<GetAccountSettingsCommandOutput> {
        expect(command).toBeInstanceOf(GetAccountSettingsCommand);
        calls.push(`lambda:GetAccountSettings ${region}`);
        const answer = state.concurrency?.[region] ?? { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 };
        if (answer instanceof Error) throw answer;
        return { AccountLimit: answer, $metadata: {} };
      },
    }),
    ssm: (region) => ({
      async send(command: GetParameterCommand): Promise<GetParameterCommandOutput> {
        expect(command).toBeInstanceOf(GetParameterCommand);
        calls.push(`ssm:GetParameter ${region} ${command.input.Name}`);
        const value = state.bootstrap?.[region];
        if (value === undefined) throw new ParameterNotFound({ message: 'Parameter not found', $metadata: {} });
        return { Parameter: { Name: command.input.Name, Value: value }, $metadata: {} };
      },
    }),
  };
  return { clients, calls };
}

const bootstrapped = { 'eu-west-2': '30', 'eu-west-1': '30', 'us-east-1': '30' };

async function preflight(stage: string, state: AccountState) {
  const aws = fakeAws(state);
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['preflight', '--stage', stage], {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    env: {},
    preflight: { clients: aws.clients, stages: stagesFile() },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), calls: aws.calls };
}

describe('bureau preflight', () => {
  it("passes an account with Lambda's default concurrency, bootstrapped in the stage's region and in us-east-1", async () => {
    const outcome = await preflight('big', { bootstrap: bootstrapped });

    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/✓ Lambda concurrency, eu-west-2\s+1000 unreserved of 1000; the stage needs 57 at most/);
    expect(outcome.stdout).toMatch(/✓ CDK bootstrap, eu-west-2\s+version 30/);
    expect(outcome.stdout).toMatch(/✓ CDK bootstrap, us-east-1\s+version 30/);
    expect(outcome.stdout).toContain('Preflight passed: deploy with npx cdk deploy --all -c stage=big');
    expect(outcome.calls).toEqual([
      'lambda:GetAccountSettings eu-west-2',
      `ssm:GetParameter eu-west-2 ${BOOTSTRAP_VERSION_PARAMETER}`,
      `ssm:GetParameter us-east-1 ${BOOTSTRAP_VERSION_PARAMETER}`,
    ]);
  });

  it("itemizes the stage's concurrency, and adds the stages of the same region that may share the account", async () => {
    const outcome = await preflight('big', { bootstrap: bootstrapped });

    expect(outcome.stdout).toMatch(/^\s+12 {2}Companies House streams: 6, each one execution around the clock and two during a handover$/m);
    expect(outcome.stdout).toMatch(/^\s+17 {2}queue consumers at their caps \(streamReplay 2, fanout 5, sender 10\)$/m);
    expect(outcome.stdout).toMatch(/^\s+10 {2}API traffic: 100 requests a second/m);
    // small is in eu-west-2 too; ireland and edge are not.
    expect(outcome.stdout).toMatch(/^\s+101 with small, in eu-west-2 too, if this account runs it, which the account has$/m);
  });

  it('fails a new account whose concurrency is short, saying which quota to raise and how', async () => {
    const outcome = await preflight('small', {
      concurrency: { 'eu-west-2': { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } },
      bootstrap: bootstrapped,
    });

    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(/✗ Lambda concurrency, eu-west-2\s+10 unreserved of 10; the stage needs 44 at most/);
    expect(outcome.stdout).toContain(
      '→ ask for 1000: aws service-quotas request-service-quota-increase --region eu-west-2 --service-code lambda --quota-code L-B99A9384 --desired-value 1000',
    );
    expect(outcome.stdout).toMatch(/101 with big, in eu-west-2 too, if this account runs it, more than the account's 10/);
    expect(outcome.stderr).toContain('error: preflight of small failed 1 of 3 checks: Lambda concurrency, eu-west-2');
  });

  it('counts what functions of other software in the account reserve: only the unreserved executions are the stage’s', async () => {
    const outcome = await preflight('small', {
      concurrency: { 'eu-west-2': { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 40 } },
      bootstrap: bootstrapped,
    });

    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(/✗ Lambda concurrency, eu-west-2\s+40 unreserved of 1000/);
  });

  it('fails a region never bootstrapped and one bootstrapped by a CDK too old, with the command that fixes each', async () => {
    const outcome = await preflight('ireland', { bootstrap: { 'eu-west-1': '4' } });

    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(/✗ CDK bootstrap, eu-west-1\s+version 4, older than the 6 the templates require/);
    expect(outcome.stdout).toMatch(/✗ CDK bootstrap, us-east-1\s+not bootstrapped/);
    expect(outcome.stdout).toContain(
      '→ run npx cdk bootstrap aws://$(aws sts get-caller-identity --query Account --output text)/us-east-1',
    );
    expect(outcome.stderr).toContain('failed 2 of 3 checks: CDK bootstrap, eu-west-1, CDK bootstrap, us-east-1');
  });

  it('checks the bootstrap once for a stage in us-east-1', async () => {
    const outcome = await preflight('edge', { bootstrap: bootstrapped });

    expect(outcome.code).toBe(0);
    expect(outcome.calls.filter((call) => call.startsWith('ssm:'))).toEqual([`ssm:GetParameter us-east-1 ${BOOTSTRAP_VERSION_PARAMETER}`]);
  });

  it('fails, and still runs every check, when AWS cannot be asked: no credentials, or no permission', async () => {
    const noCredentials = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });

    const outcome = await preflight('small', { concurrency: { 'eu-west-2': noCredentials }, bootstrap: bootstrapped });

    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(
      /✗ Lambda concurrency, eu-west-2\s+could not read: CredentialsProviderError: Could not load credentials from any providers/,
    );
    expect(outcome.stdout).toContain('→ use credentials for the account that may call lambda:GetAccountSettings');
    expect(outcome.stdout).toMatch(/✓ CDK bootstrap, us-east-1/);
  });

  it('names the stages there are when asked for one infra/stages.json lacks, and calls no AWS', async () => {
    const outcome = await preflight('staging', {});

    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('No stage "staging" in infra/stages.json; the stages are: small, big, ireland, edge');
    expect(outcome.calls).toEqual([]);
  });
});

describe('concurrencyNeeds', () => {
  const defaults = { streams: ['companies', 'filings', 'charges'], importBatches: 8, sweepSegments: 8 };

  it('adds up the streams twice over, the queue caps, an import, the companies stream, API traffic, the rotation and a deploy', () => {
    const needs = concurrencyNeeds({ apiThrottle: { rateLimit: 300 } }, defaults);

    expect(needs.map((need) => need.executions)).toEqual([6, 17, 10, 4, 30, 1, 3]);
    expect(total(needs)).toBe(71);
  });

  it('gives API traffic 5 executions at least, and none to streams a stage turns off', () => {
    const needs = concurrencyNeeds({ apiThrottle: { rateLimit: 1 }, registerFeeds: { companiesHouseStreams: [] } }, defaults);

    expect(needs.map((need) => need.executions)).toEqual([0, 17, 10, 4, 5, 1, 3]);
  });
});

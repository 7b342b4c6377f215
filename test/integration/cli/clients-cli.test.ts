import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target, TargetFactory, TargetOptions } from '../../../cli/context';
import { run } from '../../../cli/main';
import { resolveLocalTarget, resolveStackTarget, TargetError } from '../../../cli/target';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url));

async function cli(argv: string[], resolveTarget: TargetFactory): Promise<Outcome> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { io: { out: (line) => out.push(line), err: (line) => err.push(line) }, resolveTarget, env: {} });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** A target over this file's own tables, recording how the CLI opened and closed it. */
function testTarget(tables: TestTables) {
  const calls = { opened: [] as TargetOptions[], closed: 0 };
  const factory: TargetFactory = async (options) => {
    calls.opened.push(options);
    return {
      doc: tables.doc,
      tables: {
        clients: tables.names.clients ?? '',
        companies: tables.names.companies ?? '',
        watches: tables.names.watches ?? '',
        webhooks: tables.names.webhooks ?? '',
        deliveries: tables.names.deliveries ?? '',
        workspace: tables.names.workspace ?? '',
      },
      sealer,
      loopbackReceivers: false,
      description: 'test tables',
      close: async () => {
        calls.closed++;
      },
    };
  };
  return { factory, calls };
}

const secretIn = (text: string) => /client_secret: (\S+)/.exec(text)?.[1] ?? '';
const clientIdIn = (text: string) => /client_id: +(\S+)/.exec(text)?.[1] ?? '';

describe('bureau clients', () => {
  let tables: TestTables;
  let registry: DynamoClientRegistry;
  let target: ReturnType<typeof testTarget>;

  beforeAll(async () => {
    tables = await createTestTables();
    registry = new DynamoClientRegistry(tables.doc, tables.names.clients ?? '');
  });

  const bureau = (...argv: string[]) => {
    target = testTarget(tables);
    return cli(argv, target.factory);
  };

  it('creates a client and prints its id and working secret once, with a warning', async () => {
    // Act
    const result = await bureau('clients', 'create', '--name', 'Acme Ltd', '--rate-limit', '600');

    // Assess
    expect(result.code).toBe(0);
    const clientId = clientIdIn(result.stdout);
    const secret = secretIn(result.stdout);
    expect(result.stdout).toContain('Created client "Acme Ltd" (rate limit: 600/min)');
    expect(result.stderr).toContain('cannot be shown again');
    expect(await registry.verifyCredentials(clientId, secret)).toMatchObject({
      name: 'Acme Ltd',
      rateLimitPerMinute: 600,
      status: 'active',
    });
    expect(target.calls.closed).toBe(1);
  });

  it('prints the new client as JSON with --json, and only JSON on stdout', async () => {
    const result = await bureau('clients', 'create', '--name', 'Json Co', '--client-id', 'json-co', '--json');

    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({ clientId: 'json-co', name: 'Json Co', status: 'active' });
    expect(await registry.verifyCredentials('json-co', printed.clientSecret)).toBeDefined();
    expect(JSON.stringify(printed)).not.toMatch(/hash/i);
  });

  it('lists every client as a table and as JSON', async () => {
    // Prepare
    await registry.create({ name: 'Listed One', clientId: 'listed-one' });
    await registry.create({ name: 'Listed Two', clientId: 'listed-two', rateLimitPerMinute: 42 });

    // Act
    const table = await bureau('clients', 'list');
    const json = await bureau('clients', 'list', '--json');

    // Assess
    expect(table.code).toBe(0);
    const [heading, ...rows] = table.stdout.split('\n');
    expect(heading).toMatch(/^ID +NAME +STATUS +CREATED +RATE LIMIT$/);
    expect(rows.find((row) => row.startsWith('listed-two'))).toMatch(/^listed-two +Listed Two +active +\d{4}-\d\d-\d\dT[\d:.]+Z +42\/min$/);
    expect(rows.find((row) => row.startsWith('listed-one'))).toMatch(/ default$/);
    const listed = JSON.parse(json.stdout) as { clientId: string }[];
    expect(listed.map((client) => client.clientId)).toEqual(expect.arrayContaining(['listed-one', 'listed-two']));
    expect(json.stdout).not.toMatch(/hash/i);
  });

  it('refuses to rotate a secret without an explicit grace, naming the choice, and changes nothing', async () => {
    const { secret } = await registry.create({ name: 'Undecided', clientId: 'undecided' });

    const result = await bureau('clients', 'rotate-secret', 'undecided');

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/required option '--grace <duration>' not specified/);
    expect(target.calls.opened).toEqual([]);
    expect((await registry.get('undecided'))?.secretVersions).toHaveLength(1);
    expect(await registry.verifyCredentials('undecided', secret)).toBeDefined();
  });

  it('rotates a secret keeping the old one for a chosen 24h grace', async () => {
    // Prepare
    const { secret: oldSecret } = await registry.create({ name: 'Rotating', clientId: 'rotating' });

    // Act
    const result = await bureau('clients', 'rotate-secret', 'rotating', '--grace', '24h');

    // Assess
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('New secret (version 2) for rotating');
    expect(result.stdout).toMatch(/keeps working for 1d \(until \d{4}-\d\d-\d\dT[\d:.]+Z\)\./);
    expect(await registry.verifyCredentials('rotating', secretIn(result.stdout))).toBeDefined();
    expect(await registry.verifyCredentials('rotating', oldSecret)).toBeDefined();
    const [version] = (await registry.get('rotating'))?.secretVersions ?? [];
    expect(version?.expiresAt).toBeGreaterThan(Date.now() / 1000 + 24 * 3600 - 60);
  });

  it('rotates a secret with --grace 0 so the old one stops working at once', async () => {
    const { secret: oldSecret } = await registry.create({ name: 'Leaked', clientId: 'leaked' });

    const result = await bureau('clients', 'rotate-secret', 'leaked', '--grace', '0', '--json');

    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({ clientId: 'leaked', version: 2, graceSeconds: 0 });
    expect(await registry.verifyCredentials('leaked', printed.clientSecret)).toBeDefined();
    expect(await registry.verifyCredentials('leaked', oldSecret)).toBeUndefined();
  });

  it('disables and re-enables a client', async () => {
    const { secret } = await registry.create({ name: 'Toggled', clientId: 'toggled' });

    const disabled = await bureau('clients', 'disable', 'toggled');
    const refused = await registry.verifyCredentials('toggled', secret);
    const enabled = await bureau('clients', 'enable', 'toggled', '--json');

    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('Client toggled is disabled.');
    expect(refused).toBeUndefined();
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout)).toMatchObject({ clientId: 'toggled', status: 'active' });
    expect(await registry.verifyCredentials('toggled', secret)).toBeDefined();
  });

  it.each([
    ['rotate-secret', 'no-such-client', '--grace', '0'],
    ['disable', 'no-such-client'],
    ['enable', 'no-such-client'],
  ])('answers %s of an unknown client with one line and exit code 1', async (command, ...rest) => {
    const result = await bureau('clients', command, ...rest);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: No client with id "no-such-client"');
    expect(result.stdout).toBe('');
  });

  it('refuses a client id that already exists with exit code 1', async () => {
    await registry.create({ name: 'Taken', clientId: 'taken' });

    const result = await bureau('clients', 'create', '--name', 'Other', '--client-id', 'taken');

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: A client with id "taken" already exists');
  });

  it.each([
    [['clients', 'create'], /required option '--name <name>' not specified/],
    [['clients', 'create', '--name', 'X', '--rate-limit', 'fast'], /--rate-limit <perMinute>' argument 'fast' is invalid/],
    [['clients', 'create', '--name', 'X', '--rate-limit', '0'], /argument '0' is invalid/],
    [['clients', 'rotate-secret', 'someone', '--grace', '3 weeks'], /"3 weeks" is not a duration/],
    [['clients', 'rotate-secret', '--grace', '0'], /missing required argument 'clientId'/],
    [['clients', 'rename'], /unknown command 'rename'/],
    [['--colour'], /unknown option '--colour'/],
  ])('rejects bad usage %j with exit code 1 without opening the target', async (argv, message) => {
    const result = await bureau(...argv);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(target.calls.opened).toEqual([]);
  });

  it('prints help with examples and exits 0 without opening the target', async () => {
    const result = await bureau('clients', '--help');

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('rotate-secret [options] <clientId>');
    expect(result.stdout).toContain('$ bureau clients create --name "Acme Ltd" --rate-limit 600');
    expect(target.calls.opened).toEqual([]);
  });

  it('passes --stack and --region to the target and closes it after the command', async () => {
    const result = await bureau('--stack', 'Bureau-Staging', '--region', 'eu-west-1', 'clients', 'list', '--json');

    expect(result.code).toBe(0);
    expect(target.calls.opened).toEqual([{ stack: 'Bureau-Staging', region: 'eu-west-1' }]);
    expect(target.calls.closed).toBe(1);
  });

  it('exits with code 2 and one line when the target cannot be opened', async () => {
    const result = await cli(['clients', 'list'], async () => {
      throw new TargetError('Cannot read stack Missing: Stack with id Missing does not exist');
    });

    expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: Cannot read stack Missing: Stack with id Missing does not exist' });
  });

  it('exits with code 2 when the target has no such table', async () => {
    const missing: TargetFactory = async () => ({
      doc: tables.doc,
      tables: {
        clients: 'no-such-table',
        companies: 'no-such-table',
        watches: 'no-such-table',
        webhooks: 'no-such-table',
        deliveries: 'no-such-table',
        workspace: 'no-such-table',
      },
      sealer,
      loopbackReceivers: false,
      description: 'broken',
      close: async () => {},
    });

    const result = await cli(['clients', 'list'], missing);

    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: .*non-existent table/i);
  });
});

describe('bureau target resolution', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'bureau-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('uses the running local runtime named in runtime.json', async () => {
    // Prepare
    const tables = await createTestTables();
    const runtimeDir = join(dataDir, 'running');
    const endpoint = tables.env.DYNAMODB_ENDPOINT ?? '';
    mkdirSync(runtimeDir, { recursive: true });
    writeFileSync(
      join(runtimeDir, 'runtime.json'),
      JSON.stringify({ pid: process.pid, baseUrl: 'http://127.0.0.1:3000', dynamodbEndpoint: endpoint, tables: tables.names }),
    );
    await new DynamoClientRegistry(tables.doc, tables.names.clients ?? '').create({ name: 'Runtime client', clientId: 'runtime-client' });

    // Act
    const result = await cli(['clients', 'list', '--json'], () => resolveLocalTarget(runtimeDir));

    // Assess
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([expect.objectContaining({ clientId: 'runtime-client' })]);
    expect(await fetch(endpoint).then(() => 'still answering')).toBe('still answering');
  });

  it('starts and stops DynamoDB Local on the data folder when no runtime answers, keeping what it wrote', async () => {
    // Prepare: a runtime file left behind by a runtime that is gone.
    const staleDir = join(dataDir, 'stale');
    mkdirSync(staleDir, { recursive: true });
    writeFileSync(
      join(staleDir, 'runtime.json'),
      JSON.stringify({ pid: 1, baseUrl: 'http://127.0.0.1:9', dynamodbEndpoint: 'http://127.0.0.1:9', tables: {} }),
    );
    let opened: Target | undefined;
    const open: TargetFactory = async () => {
      opened = await resolveLocalTarget(staleDir);
      return opened;
    };

    // Act
    const created = await cli(['clients', 'create', '--name', 'Offline', '--client-id', 'offline'], open);
    const listed = await cli(['clients', 'list', '--json'], open);

    // Assess
    expect(created.code).toBe(0);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ clientId: 'offline', name: 'Offline' })]);
    expect(opened?.tables).toEqual({
      clients: 'bureau-clients',
      companies: 'bureau-companies',
      watches: 'bureau-watches',
      webhooks: 'bureau-webhooks',
      deliveries: 'bureau-deliveries',
      workspace: 'bureau-workspace',
      registerStreams: 'bureau-registerStreams',
      events: 'bureau-events',
    });
    const endpoint = await opened?.doc.config.endpoint?.();
    await expect(fetch(`http://${endpoint?.hostname}:${endpoint?.port}`), 'stopped after the command').rejects.toThrow();
  }, 60_000);

  it('reads table names from a deployed stack’s outputs', async () => {
    const outputs = [
      { OutputKey: 'ApiUrl', OutputValue: 'https://abc.execute-api.eu-west-2.amazonaws.com' },
      { OutputKey: 'ClientsTableName', OutputValue: 'Bureau-Tablesclients-1' },
      { OutputKey: 'CompaniesTableName', OutputValue: 'Bureau-Tablescompanies-2' },
      { OutputKey: 'WatchesTableName', OutputValue: 'Bureau-Tableswatches-3' },
      { OutputKey: 'WebhooksTableName', OutputValue: 'Bureau-Tableswebhooks-4' },
      { OutputKey: 'DeliveriesTableName', OutputValue: 'Bureau-Tablesdeliveries-5' },
      { OutputKey: 'WorkspaceTableName', OutputValue: 'Bureau-Tablesworkspace-6' },
      { OutputKey: 'EventsTableName', OutputValue: 'Bureau-Tablesevents-7' },
      { OutputKey: 'WorkspaceUrl', OutputValue: 'https://d111111abcdef8.cloudfront.net/workspace/' },
      { OutputKey: 'DeliveriesQueueUrl', OutputValue: 'https://sqs.eu-west-2.amazonaws.com/1/deliveries' },
      { OutputKey: 'DeliveriesDeadLetterQueueUrl', OutputValue: 'https://sqs.eu-west-2.amazonaws.com/1/deliveries-dlq' },
    ];
    const requests: unknown[] = [];
    const cloudFormation = {
      send: async (command: DescribeStacksCommand) => {
        requests.push(command.input);
        return { Stacks: [{ StackName: 'Bureau', Outputs: outputs }] };
      },
    };

    const target = await resolveStackTarget('Bureau', 'eu-west-2', cloudFormation as never);
    await target.close();

    expect(requests).toEqual([{ StackName: 'Bureau' }]);
    expect(target.tables).toEqual({
      clients: 'Bureau-Tablesclients-1',
      companies: 'Bureau-Tablescompanies-2',
      watches: 'Bureau-Tableswatches-3',
      webhooks: 'Bureau-Tableswebhooks-4',
      deliveries: 'Bureau-Tablesdeliveries-5',
      workspace: 'Bureau-Tablesworkspace-6',
      events: 'Bureau-Tablesevents-7',
    });
    expect(target.workspaceOrigin).toBe('https://d111111abcdef8.cloudfront.net');
    expect(target.queues?.deliveries).toBe('https://sqs.eu-west-2.amazonaws.com/1/deliveries');
    expect(target.queues?.deliveriesDeadLetter).toBe('https://sqs.eu-west-2.amazonaws.com/1/deliveries-dlq');
    expect(target.loopbackReceivers).toBe(false);
    expect(target.cloudWatch).toBeDefined();
    expect(target.description).toBe('stack Bureau');
  });

  it('says which output is missing when a stack lacks one', async () => {
    const cloudFormation = {
      send: async () => ({ Stacks: [{ StackName: 'Old', Outputs: [{ OutputKey: 'ClientsTableName', OutputValue: 'c' }] }] }),
    };

    await expect(resolveStackTarget('Old', undefined, cloudFormation as never)).rejects.toThrow(
      new TargetError("Stack Old's outputs names no companies table"),
    );
  });

  it('turns a failed stack lookup into a target error', async () => {
    const cloudFormation = {
      send: async () => {
        throw new Error('Stack with id Gone does not exist');
      },
    };

    await expect(resolveStackTarget('Gone', undefined, cloudFormation as never)).rejects.toThrow(
      new TargetError('Cannot read stack Gone: Stack with id Gone does not exist'),
    );
  });
});

describe('bin/bureau.js', () => {
  it('runs the CLI from the command line', () => {
    const result = spawnSync(process.execPath, ['bin/bureau.js', '--help'], { cwd: repositoryRoot, encoding: 'utf8', timeout: 30_000 });

    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: bureau [options] [command]');
    expect(result.stdout).toContain('clients');
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import type { Target, TargetFactory } from '../../../cli/context';
import { run } from '../../../cli/main';
import { webhooksTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables([webhooksTable]);
});

const target: TargetFactory = async () =>
  ({
    doc: tables.doc,
    tables: {
      clients: 'unused',
      companies: 'unused',
      watches: 'unused',
      webhooks: tables.names.webhooks as string,
      deliveries: 'unused',
      workspace: 'unused',
    },
    sealer,
    loopbackReceivers: false,
    description: 'the test tables',
    close: async () => {},
  }) satisfies Target;

async function bureau(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    resolveTarget: target,
    env: {},
    resolveHost: async (hostname) => (hostname === 'hooks.example.com' ? ['93.184.215.14'] : []),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('bureau webhooks', () => {
  it("registers, lists, shows, changes, rotates and deletes a client's subscription", async () => {
    const created = await bureau(
      'webhooks',
      'create',
      '--client',
      'cli-acme',
      '--name',
      'Production',
      '--url',
      'https://hooks.example.com/in',
      '--json',
    );
    const { id, signingSecret } = JSON.parse(created.stdout) as { id: string; signingSecret: string };

    const listed = await bureau('webhooks', 'list', '--client', 'cli-acme');
    const shown = await bureau('webhooks', 'show', '--client', 'cli-acme', id);
    const updated = await bureau('webhooks', 'update', '--client', 'cli-acme', id, '--status', 'DISABLED', '--json');
    const rotated = await bureau('webhooks', 'rotate-secret', '--client', 'cli-acme', id, '--json');
    const deleted = await bureau('webhooks', 'delete', '--client', 'cli-acme', id);
    const empty = await bureau('webhooks', 'list', '--client', 'cli-acme');

    expect(created.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${id} +Production +ACTIVE +https://hooks.example.com/in`));
    expect(shown.stdout).toContain(`signingSecret:  ${signingSecret}`);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id, status: 'DISABLED' });
    expect(JSON.parse(rotated.stdout).signingSecret).not.toBe(signingSecret);
    expect(deleted.stdout).toBe(`Deleted webhook subscription ${id} of client cli-acme.`);
    expect(empty.stdout).toBe('Client cli-acme has no webhook subscriptions.');
  });

  it('sets filters as the API takes them, shows them as that JSON, removes them with null, and refuses what the API refuses', async () => {
    const created = await bureau(
      'webhooks',
      'create',
      '--client',
      'cli-filters',
      '--name',
      'Risk',
      '--url',
      'https://hooks.example.com/in',
      '--filters',
      '{"blocks":["riskOfFailure"],"companies":["gb:1234567"]}',
      '--json',
    );
    const { id, filters } = JSON.parse(created.stdout) as { id: string; filters: unknown };
    const shown = await bureau('webhooks', 'show', '--client', 'cli-filters', id);
    const cleared = await bureau('webhooks', 'update', '--client', 'cli-filters', id, '--filters', 'null', '--json');
    const unknown = await bureau('webhooks', 'update', '--client', 'cli-filters', id, '--filters', '{"blocks":["secrets"]}');
    const notJson = await bureau('webhooks', 'update', '--client', 'cli-filters', id, '--filters', '{blocks:}');

    expect(filters).toEqual({ blocks: ['riskOfFailure'], companies: ['GB:01234567'] });
    expect(shown.stdout).toContain('filters:        {"blocks":["riskOfFailure"],"companies":["GB:01234567"]}');
    expect(JSON.parse(cleared.stdout)).toMatchObject({ id, filters: null });
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('filters.blocks has values it does not know: "secrets"') });
    expect(notJson.code).not.toBe(0);
    expect(notJson.stderr).toContain('JSON such as');
  });

  it('keeps clients apart, and refuses what the API refuses, with one line and exit code 1', async () => {
    const created = await bureau(
      'webhooks',
      'create',
      '--client',
      'cli-one',
      '--name',
      'Mine',
      '--url',
      'https://hooks.example.com/in',
      '--json',
    );
    const { id } = JSON.parse(created.stdout) as { id: string };

    const other = await bureau('webhooks', 'show', '--client', 'cli-two', id);
    const privateUrl = await bureau('webhooks', 'create', '--client', 'cli-one', '--name', 'x', '--url', 'https://10.0.0.1/in');
    const badStatus = await bureau('webhooks', 'update', '--client', 'cli-one', id, '--status', 'PAUSED');
    const nothing = await bureau('webhooks', 'update', '--client', 'cli-one', id);

    expect(other).toMatchObject({ code: 1, stderr: `error: No webhook subscription with id "${id}"` });
    expect(privateUrl).toMatchObject({ code: 1, stderr: "error: url's host 10.0.0.1 is not a public internet address." });
    expect(badStatus).toMatchObject({ code: 1, stderr: 'error: status must be one of ACTIVE, DISABLED.' });
    expect(nothing).toMatchObject({ code: 1, stderr: 'error: Give at least one of name, url, status, filters to change.' });
  });
});

import { fileURLToPath } from 'node:url';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Target, TargetFactory } from '../../../cli/context';
import { run } from '../../../cli/main';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { profileKey } from '../../../shared/companies/search-index';
import { importProfiles, openImportFile } from '../../../shared/register/import/import';
import { DynamoSetAsideEvents } from '../../../shared/register/stream/set-aside';
import { companiesTable, registerStreamsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { testSealer } from '../../support/sealer';
import { acmeProfile, wire } from './fixtures/companies-house-wire';

const MAY = fileURLToPath(new URL('../../fixtures/register/BasicCompanyData-2024-05-01-part1_1.csv', import.meta.url));
const ESC = '\u001b';

let tables: TestTables;
let setAside: DynamoSetAsideEvents;

beforeEach(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }, registerStreamsTable]);
  setAside = new DynamoSetAsideEvents(tables.doc, tables.names[registerStreamsTable.id] as string);
});

const target: TargetFactory = async () =>
  ({
    doc: tables.doc,
    tables: {
      clients: 'unused',
      companies: tables.names.companies as string,
      watches: 'unused',
      webhooks: 'unused',
      deliveries: 'unused',
      workspace: 'unused',
      registerStreams: tables.names[registerStreamsTable.id] as string,
    },
    sealer: testSealer(),
    loopbackReceivers: false,
    description: 'the test deployment',
    close: async () => {},
  }) satisfies Target;

async function bureau(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { io: { out: (line) => out.push(line), err: (line) => err.push(line) }, resolveTarget: target, env: {} });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('bureau streams set-aside', () => {
  it('lists the events set aside, their errors cleaned, and replays them once what refused them is fixed', async () => {
    // Arrange: ACME held, and its liquidation set aside while its write was refused
    const source = await openImportFile(MAY, {});
    await importProfiles(source.records, new DynamoCompanyStore(tables.doc, tables.names.companies as string));
    const liquidation = wire('companies', acmeProfile({ company_status: 'liquidation' }), '2024-05-20T09:00:00');
    await setAside.keep(liquidation, `ValidationException: refused ${ESC}[31mred${ESC}[0m`);

    // Act
    const listed = await bureau('streams', 'set-aside');
    const json = await bureau('streams', 'set-aside', '--stream', 'companies', '--json');
    const replayed = await bureau('streams', 'set-aside', '--replay');
    const after = await bureau('streams', 'set-aside');

    // Assert
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(String(liquidation.timepoint));
    expect(listed.stdout).toContain('/company/09446231');
    expect(listed.stdout).toContain('ValidationException: refused red');
    expect(listed.stdout).not.toContain(ESC);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ stream: 'companies', timepoint: liquidation.timepoint, resourceUri: '/company/09446231' }),
    ]);
    expect(replayed).toMatchObject({ code: 0, stdout: expect.stringContaining('Replayed 1 event(s)') });
    expect(after.stdout).toBe('No stream events are set aside.');
    const acme = await tables.doc.send(new GetCommand({ TableName: tables.names.companies, Key: profileKey('GB', '09446231') }));
    expect(acme.Item?.tradingStatus.status).toBe('liquidation');
  });

  it('refuses a stream that does not exist', async () => {
    const result = await bureau('streams', 'set-aside', '--stream', 'gossip');

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"gossip" is not a stream');
  });
});

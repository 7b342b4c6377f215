import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type DemoDataset, demoDataset, INDEX_LAYOUT, seedDemoCompanies } from '../../../local/seed';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables } from '../../support/dynamo';

/** The first 40 rows of the real sample and 10 generated IE companies: the same path, in seconds. */
function smallDataset(gbRows = 40, ieCount = 10): DemoDataset {
  const dir = mkdtempSync(join(tmpdir(), 'bureau-seed-'));
  const gbFile = join(dir, 'gb.csv');
  writeFileSync(
    gbFile,
    `${readFileSync(demoDataset.gbFile, 'utf8')
      .split('\n')
      .slice(0, gbRows + 1)
      .join('\n')}\n`,
  );
  return { id: `small-test-dataset-${gbRows}-${ieCount}+${INDEX_LAYOUT}`, gbFile, gbRows, ieCount };
}

async function companiesOnly() {
  // Stream-less: streams add nothing here and slow DynamoDB Local down.
  const { doc, names } = await createTestTables([{ ...companiesTable, stream: undefined }]);
  return { doc, tableName: names.companies as string };
}

describe('demo data on first start', () => {
  it('loads the GB sample and generated IE companies once, then finds its marker', async () => {
    const { doc, tableName } = await companiesOnly();
    const dataset = smallDataset();
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);

    const first = await seedDemoCompanies({ doc, tableName, log, signal: new AbortController().signal, dataset });
    const second = await seedDemoCompanies({ doc, tableName, log, signal: new AbortController().signal, dataset });

    expect(first).toBe('loaded');
    expect(second).toBe('present');
    const store = new DynamoCompanyStore(doc, tableName);
    expect((await store.get('GB', '15380840'))?.name).toBe('CPA GATES LTD');
    expect((await store.get('GB', '15380840'))?.dataSource).toBe('demo');
    // The spelling vocabulary was written in bulk after the companies: "gats" corrects to "gates".
    expect([...(await store.variantWords('GB', ['gats'])).values()].flat()).toContain('gates');
    expect(lines.at(-1)).toMatch(/^Demo companies loaded in [\d.]+ s: 50 created, 0 updated, 0 unchanged; 0 malformed rows/);
  });

  it('says how to rebuild a data folder whose search index an earlier version laid out', async () => {
    const { doc, tableName } = await companiesOnly();
    await doc.send(new PutCommand({ TableName: tableName, Item: { pk: 'META#SEED', sk: 'gb-companies-2024-01+ie-generated-5000' } }));
    const lines: string[] = [];

    await seedDemoCompanies({
      doc,
      tableName,
      log: (line) => lines.push(line),
      signal: new AbortController().signal,
      dataset: smallDataset(2, 1),
    });

    expect(lines.join('\n')).toContain('npm start -- --fresh');
  });

  it('leaves no marker when stopped, so the next start loads again', async () => {
    const { doc, tableName } = await companiesOnly();
    const dataset = smallDataset();
    const stopped = new AbortController();
    stopped.abort();

    const interrupted = await seedDemoCompanies({ doc, tableName, log: () => {}, signal: stopped.signal, dataset });
    const resumed = await seedDemoCompanies({ doc, tableName, log: () => {}, signal: new AbortController().signal, dataset });

    expect(interrupted).toBe('interrupted');
    expect(resumed).toBe('loaded');
  });

  it('stops in the spelling vocabulary as soon as it is told to, rather than writing the rest of it first', async () => {
    const dataset = smallDataset();
    const vocabularyKeys = async ({ doc, tableName }: Awaited<ReturnType<typeof companiesOnly>>) =>
      (
        await doc.send(
          new ScanCommand({ TableName: tableName, FilterExpression: 'sk = :words', ExpressionAttributeValues: { ':words': 'WORDS' } }),
        )
      ).Items?.length ?? 0;
    const whole = await companiesOnly();
    await seedDemoCompanies({ ...whole, log: () => {}, signal: new AbortController().signal, dataset });
    const stopped = await companiesOnly();
    const stop = new AbortController();
    const log = (line: string) => {
      if (line.includes('spelling vocabulary')) stop.abort();
    };

    const outcome = await seedDemoCompanies({ ...stopped, log, signal: stop.signal, dataset });

    expect(outcome).toBe('interrupted');
    // The keys are written in rounds of 100: the one under way when told to stop, and no more.
    expect(await vocabularyKeys(whole)).toBeGreaterThan(200);
    expect(await vocabularyKeys(stopped)).toBeLessThanOrEqual(100);
  });

  it('completes a partly loaded database without rewriting the companies already there', async () => {
    const { doc, tableName } = await companiesOnly();
    await seedDemoCompanies({ doc, tableName, log: () => {}, signal: new AbortController().signal, dataset: smallDataset(20, 0) });
    const lines: string[] = [];

    await seedDemoCompanies({
      doc,
      tableName,
      log: (line) => lines.push(line),
      signal: new AbortController().signal,
      dataset: smallDataset(40, 10),
    });

    expect(lines.at(-1)).toMatch(/: 30 created, 0 updated, 20 unchanged;/);
    expect((await new DynamoCompanyStore(doc, tableName).get('GB', '15380840'))?.version).toBe(1);
  });
});

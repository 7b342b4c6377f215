import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoImportReaders } from '../../../demo/search-export';
import { type CompanyStore, isDraft, type SaveOutcome } from '../../../shared/companies/company-store';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import type { ProfileContent } from '../../../shared/companies/profile';
import {
  formatOfHead,
  type ImportRecord,
  type ImportStats,
  importProfiles,
  openImportFile,
  readNdjsonProfiles,
  UnsupportedImportFileError,
} from '../../../shared/register/import/import';
import { REGISTER_COLUMNS } from '../../../shared/register/register-csv';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';

const SAMPLE = fileURLToPath(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'bureau-import-'));

function file(name: string, text: string): string {
  const path = join(workDir, name);
  writeFileSync(path, text);
  return path;
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of source) all.push(item);
  return all;
}

async function* recordsOf(profiles: readonly ProfileContent[]): AsyncGenerator<ImportRecord> {
  for (const [index, profile] of profiles.entries()) yield { line: index + 1, profile };
}

let store: DynamoCompanyStore;

beforeAll(async () => {
  const tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
});

describe('readNdjsonProfiles', () => {
  it('yields a profile per valid line and an error naming the line for bad JSON or an invalid profile', async () => {
    const valid = profileContent({ companyNumber: '12345678', name: 'Lantern Works Ltd' });
    const { jurisdiction: _dropped, ...missingJurisdiction } = profileContent({ companyNumber: '12345679', name: 'Broken Ltd' });
    const text = [
      JSON.stringify({ ...valid, version: 3, updatedAt: '2024-01-01T00:00:00Z' }),
      '',
      '{"name": ',
      JSON.stringify(missingJurisdiction),
    ].join('\r\n');

    const records = await collect(readNdjsonProfiles(Readable.from([text])));

    expect(records).toHaveLength(3);
    expect(records[0]).toEqual({ line: 1, profile: valid });
    expect(records[1]).toMatchObject({ line: 3, error: expect.stringContaining('not valid JSON') });
    expect(records[2]).toMatchObject({ line: 4, error: expect.stringContaining('jurisdiction') });
  });
});

describe('formatOfHead', () => {
  it('goes by the first line, whatever the file is called', () => {
    expect(formatOfHead('\n  {"jurisdiction":"GB"}\n', 'profiles.txt')).toBe('ndjson');
    expect(formatOfHead(`\uFEFF${REGISTER_COLUMNS.join(',')}\n"A LTD"`, 'register.txt')).toBe('search-export');
    expect(() => formatOfHead('hello', 'notes.txt')).toThrow(UnsupportedImportFileError);
    expect(() => formatOfHead('company_name,company_number\n', 'short.csv')).toThrow(/lacks the column\(s\) company_status, company_type/);
  });
});

describe('importProfiles into DynamoDB Local', () => {
  it('imports an NDJSON file, counts rejects with their lines, and writes nothing when run again', async () => {
    const profiles = Array.from({ length: 30 }, (_, i) =>
      profileContent({ companyNumber: String(13000000 + i), name: `Import Test ${i} Ltd` }),
    );
    const path = file(
      'profiles.ndjson',
      [...profiles.slice(0, 20).map((p) => JSON.stringify(p)), 'not json', ...profiles.slice(20).map((p) => JSON.stringify(p))].join('\n'),
    );
    const progress: ImportStats[] = [];

    const first = await importProfiles((await openImportFile(path)).records, store, {
      concurrency: 2,
      batchSize: 7,
      onProgress: (stats) => progress.push(stats),
    });
    const again = await importProfiles((await openImportFile(path)).records, store, { concurrency: 2, batchSize: 7 });

    expect(first).toMatchObject({ read: 31, created: 30, updated: 0, unchanged: 0, rejected: 1 });
    expect(first.errors).toEqual([{ line: 21, message: expect.stringContaining('not valid JSON') }]);
    expect(progress.length).toBe(5);
    expect(progress.at(-1)).toMatchObject({ created: 30 });
    expect(again).toMatchObject({ read: 31, created: 0, updated: 0, unchanged: 30, rejected: 1 });
    expect((await store.get('GB', '13000029'))?.version).toBe(1);
  });

  it('refuses a search export file, naming its layout, where no demo reader is given (a deployed import)', async () => {
    const lines = (await readFile(SAMPLE, 'utf8')).split('\n').slice(0, 3);
    const path = file('export.csv', lines.join('\n'));

    await expect(openImportFile(path)).rejects.toThrow(/search export layout/);
  });

  it('imports search export rows with demo blocks where the demo reader is given, rejecting rows it cannot read', async () => {
    const lines = (await readFile(SAMPLE, 'utf8')).split('\n').slice(0, 41);
    const path = file('register.csv', [...lines, 'BROKEN ROW LTD,not-a-number,Active'].join('\n'));

    const result = await importProfiles((await openImportFile(path, {}, demoImportReaders)).records, store, {
      concurrency: 3,
      batchSize: 10,
    });

    expect(result).toMatchObject({ read: 41, created: 40, rejected: 1 });
    expect(result.errors[0]?.line).toBe(42);
    expect((await store.get('GB', '15380840'))?.name).toBe('CPA GATES LTD');
  });

  it('keeps only the first errors but counts them all', async () => {
    async function* broken(): AsyncGenerator<ImportRecord> {
      for (let line = 1; line <= 50; line++) yield { line, error: 'unreadable' };
    }

    const result = await importProfiles(broken(), store, { maxErrors: 5 });

    expect(result.rejected).toBe(50);
    expect(result.errors.map((error) => error.line)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('importProfiles flow control', () => {
  it('never has more than concurrency × batchSize profiles in flight, and reads no further ahead', async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    let pulled = 0;
    let saved = 0;
    let mostAhead = 0;
    const slowStore: Pick<CompanyStore, 'saveMany'> = {
      async saveMany(contents) {
        inFlight += contents.length;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= contents.length;
        saved += contents.length;
        return contents.map((): PromiseSettledResult<SaveOutcome> => ({ status: 'fulfilled', value: 'created' }));
      },
    };
    async function* counted(): AsyncGenerator<ImportRecord> {
      for (let i = 0; i < 500; i++) {
        pulled++;
        mostAhead = Math.max(mostAhead, pulled - saved);
        yield { line: i + 1, profile: profileContent({ companyNumber: String(14000000 + i), name: `Flow ${i}` }) };
      }
    }

    const result = await importProfiles(counted(), slowStore, { concurrency: 3, batchSize: 10 });

    expect(result.created).toBe(500);
    expect(mostInFlight).toBe(30);
    expect(mostAhead).toBeLessThanOrEqual(3 * 10 + 10);
  });

  it('stops and fails when a whole batch cannot be written', async () => {
    const failing: Pick<CompanyStore, 'saveMany'> = {
      saveMany: async () => {
        throw new Error('Requested resource not found');
      },
    };

    await expect(importProfiles(recordsOf([profileContent({ companyNumber: '14100000', name: 'Any' })]), failing)).rejects.toThrow(
      'Requested resource not found',
    );
  });

  it('rejects the rows whose own write fails and carries on', async () => {
    const picky: Pick<CompanyStore, 'saveMany'> = {
      saveMany: async (contents) =>
        contents.map(
          (content): PromiseSettledResult<SaveOutcome> =>
            !isDraft(content) && content.name.includes('Bad')
              ? { status: 'rejected', reason: new Error('Item size has exceeded the maximum allowed size') }
              : { status: 'fulfilled', value: 'updated' },
        ),
    };

    const result = await importProfiles(
      recordsOf([profileContent({ companyNumber: '14200000', name: 'Good' }), profileContent({ companyNumber: '14200001', name: 'Bad' })]),
      picky,
    );

    expect(result).toMatchObject({
      read: 2,
      updated: 1,
      rejected: 1,
      errors: [{ line: 2, message: 'Item size has exceeded the maximum allowed size' }],
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { profileContent } from '../../support/profile-fixture';
import { type RuntimeProcess, startRuntimeProcess } from './runtime-process';

/** Companies a call bench spreads its calls over. */
export const SEEDED_COMPANIES = 50;

export interface SeededRuntime {
  readonly runtime: RuntimeProcess;
  /** A document client on the runtime's own DynamoDB Local. */
  readonly documents: DynamoDBDocumentClient;
  /** The company number a call asks for, cycling through the seeded ones. */
  pick(call: number): string;
  /** The search a call sends, cycling through four that find the seeded companies. */
  query(call: number): string;
}

/**
 * Runs `work` against a local runtime in a process of its own (as `npm start` runs it, with a rate
 * allowance no bench reaches), seeded with SEEDED_COMPANIES companies named "Benchmark <label> …"
 * and numbered from `firstNumber`; stops it and removes its data folder after.
 */
export async function withSeededRuntime(label: string, firstNumber: number, work: (seeded: SeededRuntime) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `bureau-bench-${label.toLowerCase()}-`));
  const runtime = await startRuntimeProcess({
    ...process.env,
    BUREAU_DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    // Thousands of calls a minute from one client: the default allowance of 600 would turn them into 429s.
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  try {
    const documents = createDocumentClient(createDynamoClient(runtime.env));
    const store = new DynamoCompanyStore(documents, runtime.tables.companies as string);
    const numbers = Array.from({ length: SEEDED_COMPANIES }, (_, index) => String(firstNumber + index));
    for (const companyNumber of numbers)
      await store.save(profileContent({ companyNumber, name: `Benchmark ${label} ${companyNumber.slice(-2)} Trading Ltd` }));
    const word = `benchmark ${label.toLowerCase()}`;
    const queries = [word, `${word} 1`, `${word} 2`, `${word} 3 trading`];
    await work({
      runtime,
      documents,
      pick: (call) => numbers[call % numbers.length] as string,
      query: (call) => queries[call % queries.length] as string,
    });
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

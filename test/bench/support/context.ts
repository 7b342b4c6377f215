import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../../shared/storage/create-tables';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { allTables, type TableDefinition } from '../../../shared/storage/tables';

/**
 * small: a quick run of every benchmark; full: the large-table cases at >= 200,000 companies;
 * million: the small loops against 1,000,000 generated GB companies, to show search and profile flat.
 */
export type BenchScale = 'small' | 'full' | 'million';
export const BENCH_SCALES: readonly BenchScale[] = ['small', 'full', 'million'];

export interface BenchTables {
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  /** Physical names by table id (clients, companies, watches). */
  readonly names: Readonly<Record<string, string>>;
  /** DYNAMODB_ENDPOINT, credentials and every <TABLE>_TABLE variable: what a function would see. */
  readonly env: NodeJS.ProcessEnv;
}

export interface BenchContext {
  readonly scale: BenchScale;
  /** DynamoDB Local's endpoint and fake credentials. */
  readonly env: NodeJS.ProcessEnv;
  /** Fresh, uniquely named tables from the shared definitions. */
  createTables(defs?: readonly TableDefinition[]): Promise<BenchTables>;
  /** Prints a finished result table. */
  report(table: string): void;
  /** Prints a progress line. */
  log(line: string): void;
}

/** What each test/bench/*.bench.ts module exports. */
export interface BenchModule {
  readonly name: string;
  run(context: BenchContext): Promise<void>;
}

/**
 * Benchmark tables have no stream. Nothing here reads one, and DynamoDB Local keeps stream records
 * in its SQLite file and looks them up on every write, so with a few hundred thousand records its
 * writes slow to a crawl; DynamoDB's own stream costs a write nothing.
 */
function withoutStream({ stream: _stream, ...def }: TableDefinition): TableDefinition {
  return def;
}

export function createBenchContext(options: {
  scale: BenchScale;
  dynamodbEndpoint: string;
  write: (text: string) => void;
  clients: DynamoDBClient[];
}): BenchContext {
  const env: NodeJS.ProcessEnv = {
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    AWS_REGION: 'eu-west-2',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
  return {
    scale: options.scale,
    env,
    async createTables(defs = allTables) {
      const tableEnv: NodeJS.ProcessEnv = { ...env };
      const client = createDynamoClient(tableEnv);
      options.clients.push(client);
      const suffix = randomUUID().slice(0, 8);
      const names: Record<string, string> = {};
      for (const def of defs) {
        const name = `bench-${def.id}-${suffix}`;
        await ensureTable(client, withoutStream(def), name);
        names[def.id] = name;
        tableEnv[def.envVar] = name;
      }
      return { client, doc: createDocumentClient(client), names, env: tableEnv };
    },
    report: (table) => options.write(`\n${table}\n`),
    log: (line) => options.write(`  ${line}\n`),
  };
}

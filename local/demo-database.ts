import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress, createBrotliDecompress } from 'node:zlib';
import { DescribeTableCommand, type DynamoDBClient, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { contentHashOf, indexedNamesOf } from '../shared/companies/company-store';
import { indexItemsOf, searchEntryOf } from '../shared/companies/search-index';
import { ensureTable } from '../shared/storage/create-tables';
import { createDocumentClient, createDynamoClient } from '../shared/storage/dynamo';
import { allTables, companiesTable } from '../shared/storage/tables';
import { startDynamoDbLocal } from './dynamodb-local';
import { localTableName, repositoryRoot } from './paths';
import { type DemoDataset, demoDataset, demoRecords, MARKER_PARTITION, seedDemoCompanies } from './seed';

/**
 * The demo companies as DynamoDB Local's own database file, loaded once and kept compressed in the
 * repository: a first start on disk copies it in before the engine starts, instead of writing
 * 21,295 companies item by item through an engine that syncs every write to disk (minutes). The
 * file holds every table empty but the companies table, whose stream is switched on only after the
 * load, so the demo load raises no change.
 */

/** The file DynamoDB Local keeps every table in when started with `-sharedDb`. */
export const ENGINE_FILE = 'shared-local-instance.db';

export interface DemoDatabaseFiles {
  /** The engine's file, brotli-compressed. */
  readonly compressed: string;
  /** What the file holds: the dataset id, as the seed marker names it. */
  readonly manifest: string;
}

export const demoDatabaseFiles: DemoDatabaseFiles = {
  compressed: join(repositoryRoot, 'demo', 'database', `${ENGINE_FILE}.br`),
  manifest: join(repositoryRoot, 'demo', 'database', 'manifest.json'),
};

export interface DemoDatabaseManifest {
  readonly datasetId: string;
  /** Of every profile's content and name-index items: what the store would write for the dataset today. */
  readonly fingerprint: string;
  readonly bytes: number;
  readonly builtAt: string;
}

export function readDemoDatabaseManifest(files: DemoDatabaseFiles = demoDatabaseFiles): DemoDatabaseManifest | undefined {
  try {
    return JSON.parse(readFileSync(files.manifest, 'utf8')) as DemoDatabaseManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * A digest of what a load of the dataset writes today: each profile's content and its name-index
 * items. A change to the demo rules, the profile or the index that the dataset id does not name
 * still changes it, and a test then asks for the prebuilt database to be rebuilt.
 */
export async function demoDatasetFingerprint(dataset: DemoDataset = demoDataset): Promise<string> {
  const hash = createHash('sha256');
  for await (const { profile } of demoRecords(dataset, new AbortController().signal)) {
    if (!profile) continue;
    hash.update(contentHashOf(profile)).update(JSON.stringify(indexItemsOf(searchEntryOf(profile, indexedNamesOf(profile)))));
  }
  return hash.digest('hex');
}

export type RestoreOutcome =
  | { readonly restored: true; readonly seconds: number; readonly bytes: number }
  | { readonly restored: false; readonly reason: 'database present' | 'no prebuilt database' | 'prebuilt database is of another dataset' };

/**
 * Copies the prebuilt database into an engine folder that holds no database yet; never over one
 * that exists, which may hold a person's own data. Written beside and renamed, so a start that
 * dies half-way leaves no half file for the engine to open.
 */
export async function restoreDemoDatabase(
  engineDir: string,
  dataset: DemoDataset = demoDataset,
  files: DemoDatabaseFiles = demoDatabaseFiles,
): Promise<RestoreOutcome> {
  if (existsSync(engineDir) && readdirSync(engineDir).some((entry) => entry.endsWith('.db'))) {
    return { restored: false, reason: 'database present' };
  }
  const manifest = readDemoDatabaseManifest(files);
  if (!manifest || !existsSync(files.compressed)) return { restored: false, reason: 'no prebuilt database' };
  if (manifest.datasetId !== dataset.id) return { restored: false, reason: 'prebuilt database is of another dataset' };
  const started = performance.now();
  mkdirSync(engineDir, { recursive: true, mode: 0o700 });
  const target = join(engineDir, ENGINE_FILE);
  const partial = `${target}.partial`;
  await pipeline(createReadStream(files.compressed), createBrotliDecompress(), createWriteStream(partial, { mode: 0o600 }));
  renameSync(partial, target);
  return { restored: true, seconds: (performance.now() - started) / 1000, bytes: statSync(target).size };
}

/**
 * Switches the streams on over the loaded tables, then writes the seed marker once more so that the
 * stream holds one record, of no profile (the change detector's filter passes none but profiles):
 * DynamoDB Local numbers stream records, after a restart, on from the highest it holds, and with
 * none it would start below the shard, where no record written after the restore is ever read.
 */
async function switchStreamsOn(client: DynamoDBClient, companies: string): Promise<void> {
  for (const def of allTables) {
    if (!def.stream) continue;
    const TableName = localTableName(def);
    await client.send(new UpdateTableCommand({ TableName, StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } }));
    await client.send(new DescribeTableCommand({ TableName }));
  }
  const doc = createDocumentClient(client);
  const markers = await doc.send(
    new QueryCommand({ TableName: companies, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': MARKER_PARTITION } }),
  );
  for (const marker of markers.Items ?? []) {
    await doc.send(new PutCommand({ TableName: companies, Item: { ...marker, streamsOnAt: new Date().toISOString() } }));
  }
}

export interface BuildReport {
  readonly loadSeconds: number;
  readonly bytes: number;
  readonly compressedBytes: number;
}

/**
 * Loads the demo dataset into a fresh DynamoDB Local whose database lives in `workDir`, through
 * the same seed as a start without the prebuilt file, stops the engine, and writes the compressed
 * file and its manifest.
 */
export async function buildDemoDatabase(
  workDir: string,
  log: (line: string) => void,
  files: DemoDatabaseFiles = demoDatabaseFiles,
  dataset: DemoDataset = demoDataset,
): Promise<BuildReport> {
  const engineDir = join(workDir, 'dynamodb');
  rmSync(engineDir, { recursive: true, force: true });
  const engine = await startDynamoDbLocal({ workDir: join(workDir, 'work'), dataDir: engineDir });
  const client = createDynamoClient({ DYNAMODB_ENDPOINT: engine.endpoint, AWS_REGION: 'eu-west-2' });
  let loadSeconds: number;
  try {
    // The companies table's stream is switched on after the load: the load is not news to anyone.
    for (const def of allTables) await ensureTable(client, { ...def, stream: undefined }, localTableName(def));
    const started = performance.now();
    const outcome = await seedDemoCompanies({
      doc: createDocumentClient(client),
      tableName: localTableName(companiesTable),
      log,
      signal: new AbortController().signal,
      dataset,
    });
    if (outcome !== 'loaded') throw new Error(`The demo load ended ${outcome}`);
    loadSeconds = (performance.now() - started) / 1000;
    await switchStreamsOn(client, localTableName(companiesTable));
  } finally {
    client.destroy();
    await engine.stop();
  }
  const engineFile = join(engineDir, ENGINE_FILE);
  const leftovers = readdirSync(engineDir).filter((entry) => entry !== ENGINE_FILE);
  if (leftovers.length > 0) throw new Error(`DynamoDB Local left more than its database behind: ${leftovers.join(', ')}`);
  const bytes = statSync(engineFile).size;
  mkdirSync(join(files.compressed, '..'), { recursive: true });
  await pipeline(
    createReadStream(engineFile),
    createBrotliCompress({
      params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: bytes },
    }),
    createWriteStream(files.compressed),
  );
  const manifest: DemoDatabaseManifest = {
    datasetId: dataset.id,
    fingerprint: await demoDatasetFingerprint(dataset),
    bytes,
    builtAt: new Date().toISOString(),
  };
  writeFileSync(files.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
  return { loadSeconds, bytes, compressedBytes: statSync(files.compressed).size };
}

import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { generateIrishCompanies } from '../demo/company-generator';
import { readSearchExportProfiles } from '../demo/search-export';
import { indexedNameOf } from '../shared/companies/company-store';
import { DynamoCompanyStore } from '../shared/companies/dynamo-company-store';
import { addToVocabularyInBulk } from '../shared/companies/dynamo-vocabulary';
import type { Jurisdiction } from '../shared/companies/profile';
import { type ContentRecord, type ImportStats, importProfiles } from '../shared/register/import/import';
import { repositoryRoot } from './paths';

export interface DemoDataset {
  /**
   * Changing the dataset, or the layout of the name index, changes the id: a data folder seeded with
   * an older dataset is topped up, and one whose index has an older layout is named in a warning.
   */
  readonly id: string;
  readonly gbFile: string;
  /** Records in gbFile, for the progress lines. */
  readonly gbRows: number;
  readonly ieCount: number;
}

/**
 * The layout of what the store writes beside the profiles: the shard-free name index (2) and the
 * spelling vocabulary (1). A data folder seeded under another layout is named in a warning.
 */
export const INDEX_LAYOUT = 'name-index-2+vocabulary-1';
/** What the local runtime loads on first start: the real GB register sample and generated IE companies. */
export const demoDataset: DemoDataset = {
  id: `gb-companies-2024-01+ie-generated-5000+${INDEX_LAYOUT}`,
  gbFile: join(repositoryRoot, 'data', 'gb-companies-2024-01.csv'),
  gbRows: 16_305,
  ieCount: 5_000,
};

/** Lives beside the profiles so that it goes wherever the database goes (fresh, in memory, restored). */
export const MARKER_PARTITION = 'META#SEED';
const markerKeyOf = (dataset: DemoDataset) => ({ pk: MARKER_PARTITION, sk: dataset.id });
const isOlderLayout = (id: string) => !id.endsWith(`+${INDEX_LAYOUT}`);
const PROGRESS_INTERVAL_MS = 2_000;
const VOCABULARY_PROGRESS_INTERVAL_MS = 10_000;

/**
 * GB rows and IE companies interleaved in proportion, so both jurisdictions are searchable within
 * seconds of the first start and the load finishes with both complete. The sample's first row is the
 * company the README uses. Stops yielding once `signal` aborts.
 */
export async function* demoRecords(dataset: DemoDataset, signal: AbortSignal): AsyncGenerator<ContentRecord> {
  const irish = generateIrishCompanies(dataset.ieCount);
  const irishPerRow = dataset.ieCount / Math.max(1, dataset.gbRows);
  let irishLine = 0;
  let irishOwed = 0;
  function* irishDue(): Generator<ContentRecord> {
    for (; irishOwed >= 1; irishOwed--) {
      const next = irish.next();
      if (next.done) return;
      yield { line: ++irishLine, profile: next.value };
    }
  }
  for await (const record of readSearchExportProfiles(createReadStream(dataset.gbFile))) {
    if (signal.aborted) return;
    yield record;
    irishOwed += irishPerRow;
    yield* irishDue();
  }
  for (const profile of irish) {
    if (signal.aborted) return;
    yield { line: ++irishLine, profile };
  }
}

function progressLine(stats: ImportStats, total: number, startedMs: number): string {
  const done = stats.created + stats.updated + stats.unchanged + stats.rejected;
  const seconds = (Date.now() - startedMs) / 1000;
  const rate = done / Math.max(seconds, 0.001);
  const left = Math.max(0, Math.ceil((total - done) / Math.max(rate, 1)));
  return `  loading demo companies: ${done.toLocaleString('en-GB')} of ${total.toLocaleString('en-GB')} (${Math.min(100, Math.floor((100 * done) / total))}%), ${Math.round(rate)}/s, about ${left} s left`;
}

export type SeedOutcome = 'loaded' | 'present' | 'interrupted';

export interface SeedOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly log: (line: string) => void;
  /** Stops the load between batches (the runtime stopping); what was written stays. */
  readonly signal: AbortSignal;
  readonly dataset?: DemoDataset;
}

/**
 * Loads the demo companies once per database. The marker is written only after the whole import
 * succeeded, so an interrupted first start simply imports again; rows already stored are unchanged
 * and cost a read, not a write. Returns whether anything had to be loaded.
 */
export async function seedDemoCompanies({ doc, tableName, log, signal, dataset = demoDataset }: SeedOptions): Promise<SeedOutcome> {
  const markerKey = markerKeyOf(dataset);
  const markers = await doc.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': MARKER_PARTITION },
      ConsistentRead: true,
    }),
  );
  const seededIds = (markers.Items ?? []).map((item) => String(item.sk));
  if (seededIds.some(isOlderLayout)) {
    log('This data folder was made by an earlier version of Bureau whose search index had another layout:');
    log('search will miss or fail to correct the companies it holds.');
    log('Stop this and run `npm start -- --fresh` to rebuild it.');
  }
  if (seededIds.includes(markerKey.sk)) return 'present';

  const total = dataset.gbRows + dataset.ieCount;
  log(
    `Loading ${total.toLocaleString('en-GB')} demo companies (the GB register sample in data/ and generated IE companies, side by side).`,
  );
  log('This happens on the first start only and runs in the background: search finds more as it loads.');
  const started = Date.now();
  let lastLine = started;
  // The vocabulary is written in bulk once the companies are in: searchable first, typo-tolerant soon after.
  const words = new Map<string, { jurisdiction: Jurisdiction; word: string }>();
  async function* collectingWords(records: AsyncIterable<ContentRecord>): AsyncGenerator<ContentRecord> {
    for await (const record of records) {
      if (record.profile) {
        const { jurisdiction } = record.profile;
        for (const word of indexedNameOf(record.profile.name).words) words.set(`${jurisdiction}#${word}`, { jurisdiction, word });
      }
      yield record;
    }
  }
  const result = await importProfiles(
    collectingWords(demoRecords(dataset, signal)),
    new DynamoCompanyStore(doc, tableName, undefined, false),
    {
      // New companies go out in BatchWriteItem requests: 4 batches of 100, each 4 requests in flight.
      concurrency: 4,
      batchSize: 100,
      onProgress: (stats) => {
        if (Date.now() - lastLine < PROGRESS_INTERVAL_MS || signal.aborted) return;
        lastLine = Date.now();
        log(progressLine(stats, total, started));
      },
    },
  );
  if (signal.aborted) return 'interrupted';
  log(
    `  loading the spelling vocabulary of their ${words.size.toLocaleString('en-GB')} distinct words (search corrects typos once it is in)`,
  );
  let vocabularyLine = Date.now();
  try {
    await addToVocabularyInBulk(doc, tableName, words.values(), (done, total) => {
      // The bulk load takes no signal, and its progress is told between rounds of keys, where
      // stopping loses nothing: a runtime told to stop must not wait for minutes of rounds.
      signal.throwIfAborted();
      if (Date.now() - vocabularyLine < VOCABULARY_PROGRESS_INTERVAL_MS) return;
      vocabularyLine = Date.now();
      log(`  loading the spelling vocabulary: ${done.toLocaleString('en-GB')} of ${total.toLocaleString('en-GB')} keys`);
    });
  } catch (error) {
    if (signal.aborted) return 'interrupted';
    throw error;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(
    `Demo companies loaded in ${seconds} s: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged; ` +
      `${result.rejected} malformed rows of the sample skipped (see data/README.md).`,
  );
  const { errors: _kept, ...counts } = result;
  await doc.send(new PutCommand({ TableName: tableName, Item: { ...markerKey, seededAt: new Date().toISOString(), ...counts } }));
  return 'loaded';
}

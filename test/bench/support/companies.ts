import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { generateBritishCompanies, generateIrishCompanies } from '../../../demo/company-generator';
import { readSearchExportProfiles } from '../../../demo/search-export';
import { contentHashOf, indexedNameOf } from '../../../shared/companies/company-store';
import { addToVocabularyInBulk } from '../../../shared/companies/dynamo-vocabulary';
import type { Jurisdiction, ProfileContent } from '../../../shared/companies/profile';
import { indexItemsOf, profileKey, searchEntryOf } from '../../../shared/companies/search-index';
import { BATCH_WRITE_LIMIT, batchWrite } from '../../../shared/storage/batch';
import { companiesTable } from '../../../shared/storage/tables';
import type { BenchContext, BenchTables } from './context';

export const GB_SAMPLE_CSV = fileURLToPath(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url));

export interface CompanyRef {
  readonly jurisdiction: Jurisdiction;
  readonly companyNumber: string;
  readonly name: string;
  readonly normalizedName: string;
}

export interface CompanyDataset {
  readonly label: string;
  readonly tables: BenchTables;
  readonly companies: readonly CompanyRef[];
  /** Rows of a source file that could not become a profile (not loaded). */
  readonly rejectedRows: number;
  readonly loadSeconds: number;
}

/** One DynamoDB item in document form. */
type Item = object;

/**
 * The items DynamoCompanyStore writes for a new company: the profile item with its bookkeeping
 * (version 1, content hash, normalized name and words) and its name-index items.
 */
export function storedItemsOf(content: ProfileContent, updatedAt: string): Item[] {
  const indexed = indexedNameOf(content.name);
  const profile: Item = {
    ...profileKey(content.jurisdiction, content.companyNumber),
    ...content,
    version: 1,
    updatedAt,
    contentHash: contentHashOf(content),
    normalizedName: indexed.normalizedName,
    words: indexed.words,
  };
  return [profile, ...indexItemsOf(searchEntryOf(content, indexed))];
}

/**
 * Puts every item with plain BatchWriteItem, `concurrency` requests in flight, retrying unprocessed
 * items: the fastest way to load a table, with none of the store's checks or transactions.
 */
export async function batchWriteItems(
  doc: DynamoDBDocumentClient,
  table: string,
  items: Iterable<Item>,
  concurrency: number,
): Promise<number> {
  const source = items[Symbol.iterator]();
  let written = 0;
  const nextBatch = (): Item[] => {
    const batch: Item[] = [];
    for (let next = source.next(); !next.done; next = source.next()) {
      batch.push(next.value);
      if (batch.length === BATCH_WRITE_LIMIT) break;
    }
    return batch;
  };
  const worker = async () => {
    for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) {
      await batchWrite(
        doc,
        table,
        batch.map((Item) => ({ PutRequest: { Item } })),
      );
      written += batch.length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return written;
}

const refOf = (content: ProfileContent): CompanyRef => ({
  jurisdiction: content.jurisdiction,
  companyNumber: content.companyNumber,
  name: content.name,
  normalizedName: indexedNameOf(content.name).normalizedName,
});

/** Items of each company in turn, remembering each company as it goes: memory stays flat for any count. */
function* itemsRemembering(contents: Iterable<ProfileContent>, remember: (content: ProfileContent) => void): Generator<Item> {
  const updatedAt = new Date().toISOString();
  for (const content of contents) {
    remember(content);
    yield* storedItemsOf(content, updatedAt);
  }
}

const LOAD_CONCURRENCY = 8;
const PROGRESS_EVERY = 10_000;

async function loadDataset(
  context: BenchContext,
  label: string,
  contents: Iterable<ProfileContent>,
  rejectedRows = 0,
): Promise<CompanyDataset> {
  const started = performance.now();
  const tables = await context.createTables();
  const companies: CompanyRef[] = [];
  context.log(`loading ${label}…`);
  // The spelling vocabulary the store would keep for these companies, written in bulk after them.
  const words = new Map<string, { jurisdiction: Jurisdiction; word: string }>();
  const remember = (content: ProfileContent) => {
    for (const word of indexedNameOf(content.name).words)
      words.set(`${content.jurisdiction}#${word}`, { jurisdiction: content.jurisdiction, word });
    if (companies.push(refOf(content)) % PROGRESS_EVERY === 0) {
      context.log(`… ${companies.length.toLocaleString('en-GB')} after ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  };
  await batchWriteItems(tables.doc, tables.names[companiesTable.id] as string, itemsRemembering(contents, remember), LOAD_CONCURRENCY);
  await addToVocabularyInBulk(tables.doc, tables.names[companiesTable.id] as string, words.values());
  const loadSeconds = (performance.now() - started) / 1000;
  context.log(`loaded ${companies.length.toLocaleString('en-GB')} companies in ${loadSeconds.toFixed(0)} s`);
  return { label, tables, companies, rejectedRows, loadSeconds };
}

export const SEEDED_IE_COUNT = 5000;
const LARGE_GB_COUNT = { small: 20_000, full: 200_000, million: 1_000_000 } as const;

async function readGbSample(): Promise<{ profiles: ProfileContent[]; rejectedRows: number }> {
  const profiles: ProfileContent[] = [];
  let rejectedRows = 0;
  for await (const record of readSearchExportProfiles(createReadStream(GB_SAMPLE_CSV))) {
    if (record.profile) profiles.push(record.profile);
    else rejectedRows++;
  }
  return { profiles, rejectedRows };
}

const seeded = new WeakMap<BenchContext, Promise<CompanyDataset>>();
const large = new WeakMap<BenchContext, Promise<CompanyDataset>>();

function once(
  cache: WeakMap<BenchContext, Promise<CompanyDataset>>,
  context: BenchContext,
  load: () => Promise<CompanyDataset>,
): Promise<CompanyDataset> {
  let dataset = cache.get(context);
  if (!dataset) {
    dataset = load();
    cache.set(context, dataset);
  }
  return dataset;
}

/** The seeded size: the real GB sample, read with the register CSV reader, plus 5,000 generated IE companies. */
export function seededDataset(context: BenchContext): Promise<CompanyDataset> {
  return once(seeded, context, async () => {
    const gb = await readGbSample();
    const label = `seeded (real GB sample + ${SEEDED_IE_COUNT.toLocaleString('en-GB')} generated IE)`;
    return loadDataset(context, label, [...gb.profiles, ...generateIrishCompanies(SEEDED_IE_COUNT)], gb.rejectedRows);
  });
}

/** Generated GB companies: 20,000 at small scale, 200,000 at full scale, 1,000,000 at million. */
export function largeDataset(context: BenchContext): Promise<CompanyDataset> {
  return once(large, context, () => {
    const count = LARGE_GB_COUNT[context.scale];
    return loadDataset(context, `${count.toLocaleString('en-GB')} generated GB`, generateBritishCompanies(count));
  });
}

/** The datasets the read benchmarks run against at this scale, smallest first. */
export async function readDatasets(context: BenchContext): Promise<CompanyDataset[]> {
  return [await seededDataset(context), await largeDataset(context)];
}

/** A deterministic spread of `count` members: every (length / count)-th, so runs compare like with like. */
export function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const step = items.length / count;
  return Array.from({ length: count }, (_, index) => items[Math.floor(index * step)] as T);
}

import { createHash } from 'node:crypto';
import { nameWords, normalizeName } from './names';
import type { CompanyProfile, Jurisdiction, ProfileContent } from './profile';
import { type IndexedName, type IndexedNames, type IndexItem, indexedFormerNames, indexedWords, type SearchEntry } from './search-index';

export type SaveOutcome = 'created' | 'updated' | 'unchanged';

export interface SaveManyOptions {
  /** Transactions in flight at once. */
  readonly concurrency?: number;
}

/**
 * A profile whose content depends on the one it replaces: a register snapshot carries forward what
 * earlier snapshots established (signals and their states, late filings seen), so it is derived
 * from the stored profile at the moment of the write, and again if another writer got there first.
 */
export interface ProfileDraft {
  readonly jurisdiction: Jurisdiction;
  readonly companyNumber: string;
  /** The register snapshot the draft comes from: recorded with the profile even when its content does not change. */
  readonly registerSnapshot?: string;
  derive(current: CompanyProfile | undefined): ProfileContent;
}

/**
 * When each group of a register profile's facts was last stated, where the Streaming API stated it
 * after the snapshot (shared/register/facts-as-of.ts): bookkeeping the store keeps beside the content.
 */
export type FactsAsOf = Readonly<Record<string, string>>;

/** A stored profile with what its item keeps of its facts' dates. */
export type StoredFacts = CompanyProfile & { readonly registerSnapshot?: string; readonly factsAsOf?: FactsAsOf };

/**
 * A draft that needs the stored item's bookkeeping, not only its content: the dates of its facts
 * (the register import's, which must not undo what the stream stated later).
 */
export interface StoredDraft extends ProfileDraft {
  deriveStored(current: StoredFacts | undefined): {
    readonly content: ProfileContent;
    readonly factsAsOf?: FactsAsOf;
    /** The snapshot to record, when the draft learns it only from the stored item (it keeps the stored one). */
    readonly registerSnapshot?: string;
  };
}

export const isStoredDraft = (input: unknown): input is StoredDraft => typeof (input as Partial<StoredDraft>).deriveStored === 'function';

/** What a save takes: finished content, or a draft derived from what is stored. */
export type ProfileInput = ProfileContent | ProfileDraft;

export const isDraft = (input: ProfileInput): input is ProfileDraft => typeof (input as ProfileDraft).derive === 'function';

/** A profile with the hash of its content: together with the version, what a validator (ETag) needs. */
export interface ProfileRecord {
  readonly profile: CompanyProfile;
  readonly contentHash: string;
}

/** Company profiles, keyed by jurisdiction and canonical company number. */
export interface CompanyStore {
  get(jurisdiction: Jurisdiction, companyNumber: string): Promise<CompanyProfile | undefined>;
  getRecord(jurisdiction: Jurisdiction, companyNumber: string): Promise<ProfileRecord | undefined>;
  /** The profiles that exist among the keys, in one batched read, by `<jurisdiction>#<companyNumber>`. */
  getMany(keys: ReadonlyArray<{ jurisdiction: Jurisdiction; companyNumber: string }>): Promise<Map<string, CompanyProfile>>;
  /** Writes the profile and its name-index items atomically; identical content writes nothing. */
  save(content: ProfileInput): Promise<SaveOutcome>;
  /** Saves many profiles with bounded parallelism; one result per input, in input order. */
  saveMany(contents: readonly ProfileInput[], options?: SaveManyOptions): Promise<PromiseSettledResult<SaveOutcome>[]>;
}

/** A key range inside one index partition: sort keys from `lower` to `upper`, strictly after `after`. */
export interface KeyRange {
  readonly lower: string;
  readonly upper: string;
  readonly after?: string;
}

export interface PartitionPage {
  /** In sort-key order. */
  readonly items: readonly IndexItem[];
  /** True when the partition holds more items in the range than were returned. */
  readonly more: boolean;
}

/** The read side of the name index, as search needs it. */
export interface NameIndex {
  queryPartition(pk: string, range: KeyRange, limit: number): Promise<PartitionPage>;
  /** The search projection of one company, read from its profile. */
  entryByNumber(jurisdiction: Jurisdiction, companyNumber: string): Promise<SearchEntry | undefined>;
  /** The vocabulary words kept under each key that exists (a word or one of its deletions). */
  variantWords(jurisdiction: Jurisdiction, variants: readonly string[]): Promise<Map<string, readonly string[]>>;
}

/** Another writer changed the profile between our read and our write, twice in a row. */
export class ConcurrentProfileUpdateError extends Error {
  constructor(
    readonly jurisdiction: Jurisdiction,
    readonly companyNumber: string,
  ) {
    super(`The profile ${jurisdiction} ${companyNumber} kept changing while it was being saved`);
    this.name = 'ConcurrentProfileUpdateError';
  }
}

/** JSON with object keys sorted at every level, so equal content always hashes equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function contentHashOf(content: ProfileContent): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

export function indexedNameOf(name: string): IndexedName {
  const normalizedName = normalizeName(name);
  return { normalizedName, words: indexedWords(nameWords(normalizedName)) };
}

/** The names a profile is indexed under: its name and, beside it, the former names the register lists. */
export function indexedNamesOf(content: ProfileContent): IndexedNames {
  const current = indexedNameOf(content.name);
  const formerNames = indexedFormerNames(
    current,
    (content.overview.previousNames ?? []).map(({ name }) => ({ name, ...indexedNameOf(name) })),
  );
  return formerNames.length === 0 ? current : { ...current, formerNames };
}

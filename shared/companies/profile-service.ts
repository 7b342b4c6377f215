import { createHash } from 'node:crypto';
import type { CompanyStore } from './company-store';
import type { CompanyProfile, Jurisdiction } from './profile';

/**
 * What a fetch asks of the watches it records: the use case names what it needs, and the watch store
 * (shared/watches/watch-store.ts) provides it, so companies/ depends on nothing in watches/.
 */
export interface FetchWatches {
  /**
   * Idempotent: the first fetch sets watchedSince; a later fetch moves lastFetchedAt when the recorded
   * one is an hour old or more (or the watch is under a minute old), and otherwise writes nothing. Says
   * whether this fetch created the watch, and, when it moved lastFetchedAt, what it was before.
   */
  recordWatch(
    clientId: string,
    jurisdiction: Jurisdiction,
    companyNumber: string,
    at: string,
  ): Promise<{ readonly created: boolean; readonly previousFetchedAt?: string }>;
  /** Puts lastFetchedAt back to `previous` if the fetch stamped `at` was the last to move it. */
  restoreFetchedAt(clientId: string, jurisdiction: Jurisdiction, companyNumber: string, at: string, previous: string): Promise<void>;
  /**
   * Removes a watch only if the fetch stamped `at` created it and no later fetch touched it: undoes
   * the watch of a fetch that found no company, never a watch that an earlier fetch made.
   */
  forgetNewWatch(clientId: string, jurisdiction: Jurisdiction, companyNumber: string, at: string): Promise<void>;
}

export interface ProfileServiceDeps {
  readonly companies: Pick<CompanyStore, 'getRecord'>;
  readonly watches: FetchWatches;
  readonly clock: () => Date;
}

export interface FetchedProfile {
  readonly profile: CompanyProfile;
  /** Strong entity tag, quoted. */
  readonly etag: string;
}

export class CompanyNotFoundError extends Error {
  constructor(
    readonly jurisdiction: Jurisdiction,
    readonly companyNumber: string,
  ) {
    super(`No company numbered ${companyNumber} is on the ${jurisdiction} register.`);
    this.name = 'CompanyNotFoundError';
  }
}

/**
 * Changes whenever the content does. The content hash beside the version keeps a tag from matching
 * different content should versions ever restart (a table restored or rebuilt).
 */
export function entityTagOf(jurisdiction: Jurisdiction, companyNumber: string, version: number, contentHash: string): string {
  const digest = createHash('sha256').update(`${jurisdiction}#${companyNumber}#${version}#${contentHash}`).digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

export class FetchRefusedError extends Error {
  constructor() {
    super('The fetch was refused: its watch was undone');
    this.name = 'FetchRefusedError';
  }
}

/**
 * Reads a profile and records that the client watches it. The two writes run in parallel, so a
 * fetch costs one round trip; when there is no such company (or the read fails), a watch that this
 * very fetch created is removed again, and one that an earlier fetch made is left alone. When the
 * call turns out to be refused (`admitted` settles false: the rate limit, counted alongside), the
 * fetch leaves no trace: a watch it created is removed, a watch it touched gets its previous
 * lastFetchedAt back.
 */
export async function fetchAndWatch(
  deps: ProfileServiceDeps,
  clientId: string,
  jurisdiction: Jurisdiction,
  companyNumber: string,
  admitted: Promise<boolean> = Promise.resolve(true),
): Promise<FetchedProfile> {
  const at = deps.clock().toISOString();
  const [watch, record, allowed] = await Promise.allSettled([
    deps.watches.recordWatch(clientId, jurisdiction, companyNumber, at),
    deps.companies.getRecord(jurisdiction, companyNumber),
    admitted,
  ]);
  const refused = allowed.status === 'rejected' || !allowed.value;
  if (watch.status === 'fulfilled' && record.status === 'fulfilled' && record.value !== undefined && !refused) {
    const { profile, contentHash } = record.value;
    return { profile, etag: entityTagOf(jurisdiction, companyNumber, profile.version, contentHash) };
  }
  if (watch.status === 'fulfilled' && watch.value.created) await deps.watches.forgetNewWatch(clientId, jurisdiction, companyNumber, at);
  else if (watch.status === 'fulfilled' && refused && watch.value.previousFetchedAt !== undefined) {
    await deps.watches.restoreFetchedAt(clientId, jurisdiction, companyNumber, at, watch.value.previousFetchedAt);
  }
  if (refused) throw new FetchRefusedError();
  if (watch.status === 'rejected') throw watch.reason;
  if (record.status === 'rejected') throw record.reason;
  throw new CompanyNotFoundError(jurisdiction, companyNumber);
}

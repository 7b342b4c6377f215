import type { Jurisdiction } from '../companies/profile';

/** A company a client has fetched, and so receives change events for. */
export interface Watch {
  readonly jurisdiction: Jurisdiction;
  readonly companyNumber: string;
  readonly watchedSince: string;
  readonly lastFetchedAt: string;
}

export interface WatchPage {
  readonly items: readonly Watch[];
  readonly nextCursor?: string;
}

export interface ListWatchesOptions {
  readonly limit: number;
  readonly cursor?: string;
}

export interface WatchStore {
  /** Idempotent: the first fetch sets watchedSince, every fetch moves lastFetchedAt. */
  recordWatch(clientId: string, jurisdiction: Jurisdiction, companyNumber: string, at: string): Promise<{ readonly created: boolean }>;
  /**
   * Removes a watch only if the fetch stamped `at` created it and no later fetch touched it: undoes
   * the watch of a fetch that found no company, never a watch that an earlier fetch made.
   */
  forgetNewWatch(clientId: string, jurisdiction: Jurisdiction, companyNumber: string, at: string): Promise<void>;
  listWatches(clientId: string, options: ListWatchesOptions): Promise<WatchPage>;
}

export class InvalidWatchCursorError extends Error {
  constructor() {
    super('The cursor is not one this API issued');
    this.name = 'InvalidWatchCursorError';
  }
}

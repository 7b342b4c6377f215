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
  /**
   * Idempotent: the first fetch sets watchedSince, every fetch moves lastFetchedAt. Says whether this
   * fetch created the watch, and otherwise what lastFetchedAt was before it.
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
  listWatches(clientId: string, options: ListWatchesOptions): Promise<WatchPage>;
  isWatching(clientId: string, jurisdiction: Jurisdiction, companyNumber: string): Promise<boolean>;
}

/** One page of the clients watching a company, in client id order. */
export interface WatcherPage {
  readonly clientIds: readonly string[];
  /** The last client id of this page when more may follow. */
  readonly next?: string;
}

/** Who receives a company's change events: its watchers, read a bounded page at a time. */
export interface WatcherLookup {
  watchers(jurisdiction: Jurisdiction, companyNumber: string, options: { after?: string; limit: number }): Promise<WatcherPage>;
}

export class InvalidWatchCursorError extends Error {
  constructor() {
    super('The cursor is not one this API issued');
    this.name = 'InvalidWatchCursorError';
  }
}

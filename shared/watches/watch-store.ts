import type { Jurisdiction } from '../companies/profile';
import type { FetchWatches } from '../companies/profile-service';

/** A company a client has fetched, and so receives change events for. */
export interface Watch {
  readonly jurisdiction: Jurisdiction;
  readonly companyNumber: string;
  readonly watchedSince: string;
  /** Kept to the hour: a fetch within an hour of the recorded one leaves it (DynamoWatchStore.recordWatch). */
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

/** The watches a profile fetch records (FetchWatches), and what clients read of theirs. */
export interface WatchStore extends FetchWatches {
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

import type { CompanyProfile } from '../companies/profile';
import type { WatcherLookup } from '../watches/watch-store';
import { changeEvents, type WebhookEnvelope } from './events';

/** One event to fan out, from the watcher after `after` (none: from the first). */
export interface FanoutTask {
  readonly event: WebhookEnvelope;
  readonly after?: string;
}

export interface TaskQueue<T> {
  send(messages: readonly T[]): Promise<void>;
}

export interface ProfileChange {
  readonly before: CompanyProfile;
  readonly after: CompanyProfile;
}

/**
 * Turns a profile write into change events and queues one fan-out task per event, unless nobody
 * watches the company: then there is no one to tell and nothing is queued.
 */
export class ChangeDetector {
  constructor(
    private readonly deps: {
      readonly watchers: WatcherLookup;
      readonly tasks: TaskQueue<FanoutTask>;
    },
  ) {}

  async detect(change: ProfileChange): Promise<WebhookEnvelope[]> {
    const events = changeEvents(change.before, change.after);
    if (events.length === 0) return [];
    const { jurisdiction, companyNumber } = change.after;
    const first = await this.deps.watchers.watchers(jurisdiction, companyNumber, { limit: 1 });
    if (first.clientIds.length === 0) return [];
    await this.deps.tasks.send(events.map((event) => ({ event })));
    return events;
  }
}

import type { CompanyProfile } from '../companies/profile';
import type { WebhookEnvelope } from '../events/envelope';
import type { FanoutTask, TaskQueue } from '../queues/queues';
import type { WatcherLookup } from '../watches/watch-store';
import { changeEvents } from './events';

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

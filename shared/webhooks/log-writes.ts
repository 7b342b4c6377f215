import type { DeliveryLog, LogEntry } from './delivery-log';

/**
 * Two requests per delivery (its record and its attempt), so a whole batch of ten fits BatchWriteItem's
 * 25; a dead delivery's extra requests spill into a second request sent alongside.
 */
const ENTRIES_PER_WRITE = 12;

interface Waiting {
  readonly entry: LogEntry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The log writes of one batch of deliveries. An entry waits at most `lingerMs` for others to share
 * its write, and none at all once every delivery of the batch has ended, so a batch against a quick
 * receiver costs one write, while a slow receiver never holds back its neighbours' entries.
 */
export class LogWrites {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** @param expected deliveries of the batch still to end: each calls write or skip once. */
  constructor(
    private readonly log: Pick<DeliveryLog, 'recordMany'>,
    private expected: number,
    private readonly lingerMs: number,
  ) {}

  /** Resolves once the entry is stored. */
  write(entry: LogEntry): Promise<void> {
    this.expected -= 1;
    const stored = new Promise<void>((resolve, reject) => this.waiting.push({ entry, resolve, reject }));
    if (this.expected <= 0 || this.waiting.length >= ENTRIES_PER_WRITE) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.lingerMs);
    return stored;
  }

  /** A delivery of the batch that ended with nothing to log. */
  skip(): void {
    this.expected -= 1;
    if (this.expected <= 0 && this.waiting.length > 0) this.flush();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const taken = this.waiting;
    this.waiting = [];
    if (taken.length === 0) return;
    this.log.recordMany(taken.map(({ entry }) => entry)).then(
      () => {
        for (const { resolve } of taken) resolve();
      },
      (error: unknown) => {
        for (const { reject } of taken) reject(error);
      },
    );
  }
}

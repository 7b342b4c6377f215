import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** What of a fauxqs message the journal keeps: everything it holds, all of it plain JSON. */
export interface JournaledMessage {
  readonly messageId: string;
  approximateReceiveCount: number;
  approximateFirstReceiveTimestamp?: number;
  delayUntil?: number;
  readonly [field: string]: unknown;
}

/** The parts of a fauxqs queue (fauxqs/dist/sqs/sqsStore.js SqsQueue) the journal works with. */
export interface JournaledQueue {
  readonly name: string;
  messages: JournaledMessage[];
  delayedMessages: JournaledMessage[];
  readonly inflightMessages: Map<string, { message: JournaledMessage }>;
  enqueue(message: JournaledMessage): void;
  dequeue(maxCount: number, visibilityTimeoutOverride?: number, dlqResolver?: unknown): Array<{ ReceiptHandle: string }>;
  deleteMessage(receiptHandle: string): boolean;
  changeVisibility(receiptHandle: string, timeoutSeconds: number): void;
  purge(): void;
}

type Line =
  | { readonly op: 'put'; readonly q: string; readonly m: JournaledMessage }
  | { readonly op: 'recv'; readonly id: string; readonly n: number; readonly first?: number }
  | { readonly op: 'vis'; readonly id: string; readonly until: number }
  | { readonly op: 'del'; readonly id: string }
  | { readonly op: 'purge'; readonly q: string };

interface Live {
  queue: string;
  message: JournaledMessage;
  /** Hidden until then: sent with a delay, or a retry put off by ChangeMessageVisibility. */
  until?: number;
}

/** Past this size the journal is rewritten with only the messages still live. */
export const COMPACT_AT_BYTES = 64 * 2 ** 20;

/**
 * The local queues' write-ahead journal, so that they keep SQS's promise across a crash of the
 * runtime (kill -9 included): every change to a message is appended, synchronously, before fauxqs
 * answers the request that made it, so a client that got its answer can rely on it. At start the
 * journal is replayed: a message put off by ChangeMessageVisibility comes back when it was due (a
 * retry scheduled for hours keeps its hour), one merely in flight comes back at once (its consumer
 * died with the runtime), a delayed one keeps its delay, receive counts are kept, a
 * message moved to a dead-letter queue stays there and a deleted one is gone.
 */
export class QueueJournal {
  private readonly live = new Map<string, Live>();
  private fd: number;
  private bytes = 0;
  private compactAt = 0;

  constructor(
    private readonly file: string,
    private readonly compactAtBytes = COMPACT_AT_BYTES,
  ) {
    mkdirSync(dirname(file), { recursive: true });
    if (existsSync(file)) this.replay(readFileSync(file, 'utf8'));
    this.fd = this.compact();
  }

  /** Puts back the queue's live messages, then journals every change made to it from now on. */
  attach(queue: JournaledQueue): void {
    const now = Date.now();
    for (const entry of this.live.values()) {
      if (entry.queue !== queue.name) continue;
      if (entry.until !== undefined && entry.until > now) {
        entry.message.delayUntil = entry.until;
        queue.delayedMessages.push(entry.message);
      } else {
        queue.messages.push(entry.message);
      }
    }
    this.instrument(queue);
  }

  /** A deleted queue's messages go with it, as in SQS: a queue created again under its name starts empty. */
  forget(queueName: string): void {
    this.append({ op: 'purge', q: queueName });
  }

  close(): void {
    closeSync(this.fd);
  }

  private instrument(queue: JournaledQueue): void {
    const { enqueue, dequeue, deleteMessage, changeVisibility, purge } = queue;
    queue.enqueue = (message) => {
      this.append({ op: 'put', q: queue.name, m: message });
      enqueue.call(queue, message);
    };
    queue.dequeue = (maxCount, visibilityTimeoutOverride, dlqResolver) => {
      const received = dequeue.call(queue, maxCount, visibilityTimeoutOverride, dlqResolver);
      for (const { ReceiptHandle } of received) {
        const entry = queue.inflightMessages.get(ReceiptHandle);
        if (!entry) continue;
        const { message } = entry;
        this.append({
          op: 'recv',
          id: message.messageId,
          n: message.approximateReceiveCount,
          ...(message.approximateFirstReceiveTimestamp ? { first: message.approximateFirstReceiveTimestamp } : {}),
        });
      }
      return received;
    };
    queue.deleteMessage = (receiptHandle) => {
      const entry = queue.inflightMessages.get(receiptHandle);
      const deleted = deleteMessage.call(queue, receiptHandle);
      if (entry && deleted) this.append({ op: 'del', id: entry.message.messageId });
      return deleted;
    };
    queue.changeVisibility = (receiptHandle, timeoutSeconds) => {
      const entry = queue.inflightMessages.get(receiptHandle);
      changeVisibility.call(queue, receiptHandle, timeoutSeconds);
      if (entry) this.append({ op: 'vis', id: entry.message.messageId, until: Date.now() + timeoutSeconds * 1000 });
    };
    queue.purge = () => {
      this.append({ op: 'purge', q: queue.name });
      purge.call(queue);
    };
  }

  private append(line: Line): void {
    this.apply(line);
    this.bytes += writeSync(this.fd, `${JSON.stringify(line)}\n`);
    if (this.bytes > this.compactAt) {
      closeSync(this.fd);
      this.fd = this.compact();
    }
  }

  private apply(line: Line): void {
    switch (line.op) {
      case 'put':
        // The same id again is a move: fauxqs hands a message to its dead-letter queue that way.
        this.live.set(line.m.messageId, {
          queue: line.q,
          message: line.m,
          ...(line.m.delayUntil !== undefined ? { until: line.m.delayUntil } : {}),
        });
        return;
      case 'recv': {
        const entry = this.live.get(line.id);
        if (!entry) return;
        entry.message.approximateReceiveCount = line.n;
        if (line.first !== undefined) entry.message.approximateFirstReceiveTimestamp = line.first;
        // Its consumer dies with the runtime: after a restart it is handed out again at once, not
        // when the visibility timeout would have ended (which only guards a consumer still at work).
        entry.until = undefined;
        return;
      }
      case 'vis': {
        const entry = this.live.get(line.id);
        if (entry) entry.until = line.until;
        return;
      }
      case 'del':
        this.live.delete(line.id);
        return;
      case 'purge':
        for (const [id, entry] of this.live) if (entry.queue === line.q) this.live.delete(id);
        return;
    }
  }

  private replay(text: string): void {
    for (const raw of text.split('\n')) {
      if (raw === '') continue;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
        // A line cut short by the crash: its request never had an answer.
        continue;
      }
      this.apply(line);
    }
  }

  /** Writes the live messages alone to a new journal and puts it in place; the crash-safe rename keeps one whole journal at every moment. */
  private compact(): number {
    const lines = [...this.live.values()].map(({ queue, message, until }) =>
      JSON.stringify({ op: 'put', q: queue, m: { ...message, ...(until !== undefined ? { delayUntil: until } : {}) } } satisfies Line),
    );
    const temporary = `${this.file}.${process.pid}.tmp`;
    const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    writeFileSync(temporary, text);
    renameSync(temporary, this.file);
    this.bytes = Buffer.byteLength(text);
    // Twice what is live at least, so a journal of many waiting messages is not rewritten at every change.
    this.compactAt = Math.max(this.compactAtBytes, 2 * this.bytes);
    return openSync(this.file, 'a');
  }
}

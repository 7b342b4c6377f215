import { SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { type JournaledQueue, QueueJournal } from './durable-queues';

export interface LocalSqs {
  /** Give every SQS client this endpoint: the queue URLs' host names do not resolve. */
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

export interface LocalSqsOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly region?: string;
  /** Keep the queues' messages in this journal, so they outlive the process (see durable-queues.ts). */
  readonly journalFile?: string;
  /** Rewrite the journal with only its live messages once it grows past this; default 64 MiB. */
  readonly compactJournalAtBytes?: number;
}

type StoreClass = new () => object;

/**
 * fauxqs's own stores, given a journal. They are not in the package's exports, so they are loaded
 * from its files beside its entry point (fauxqs is pinned, and its tests run with this).
 */
async function journaledStores(journal: QueueJournal) {
  const load = async (path: string, name: string) =>
    ((await import(new URL(path, import.meta.resolve('fauxqs')).href)) as Record<string, StoreClass>)[name] as StoreClass;
  const SqsStore = (await load('./sqs/sqsStore.js', 'SqsStore')) as new () => {
    createQueue(...args: unknown[]): JournaledQueue;
    deleteQueue(url: string): boolean;
    getQueue(url: string): JournaledQueue | undefined;
  };
  class JournaledSqsStore extends SqsStore {
    override createQueue(...args: unknown[]): JournaledQueue {
      const queue = super.createQueue(...args);
      journal.attach(queue);
      return queue;
    }

    override deleteQueue(url: string): boolean {
      const queue = this.getQueue(url);
      if (queue) journal.forget(queue.name);
      return super.deleteQueue(url);
    }
  }
  const SnsStore = await load('./sns/snsStore.js', 'SnsStore');
  const S3Store = await load('./s3/s3Store.js', 'S3Store');
  return { sqsStore: new JournaledSqsStore(), snsStore: new SnsStore(), s3Store: new S3Store() };
}

/**
 * Runs fauxqs, an SQS emulator, inside this process. Built with fauxqs's buildApp rather than
 * startFauxqs so it listens on the loopback interface only (startFauxqs binds every interface).
 * Queues are created again at each start; with a journal their messages come back with them.
 */
export async function startLocalSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  const journal = options.journalFile ? new QueueJournal(options.journalFile, options.compactJournalAtBytes) : undefined;
  const app = buildApp({
    logger: false,
    defaultRegion: options.region ?? 'eu-west-2',
    ...(journal ? { stores: (await journaledStores(journal)) as never } : {}),
  });
  const address = await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await app.close();
      journal?.close();
    },
  };
}

export function createSqsClient(endpoint: string, region = 'eu-west-2'): SQSClient {
  return new SQSClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

import { SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';

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
}

/**
 * Runs fauxqs, an SQS emulator, inside this process. Built with fauxqs's buildApp rather than
 * startFauxqs so it listens on the loopback interface only (startFauxqs binds every interface).
 * State lives in memory: queues are recreated at each start, messages do not survive a restart.
 */
export async function startLocalSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  const app = buildApp({ logger: false, defaultRegion: options.region ?? 'eu-west-2' });
  const address = await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: () => app.close(),
  };
}

export function createSqsClient(endpoint: string, region = 'eu-west-2'): SQSClient {
  return new SQSClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

import { startLocalRuntime } from '../../../local/runtime';
import type { RuntimeReady, RuntimeRequest } from './runtime-process';

/**
 * The local runtime in a process of its own (forked by runtime-process.ts): its memory, read from
 * /proc by the parent, is then the runtime's alone, not the load generator's. Settings come from the
 * environment as under npm start; it reports where everything is, answers for its main thread's heap,
 * and stops when told to or when its parent goes.
 */
const send = (message: unknown) => process.send?.(message);

try {
  const runtime = await startLocalRuntime({ port: 0, quiet: true, queueWaitSeconds: 1 });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= runtime.stop().finally(() => process.exit(0));
    return stopping;
  };
  process.on('message', (request: RuntimeRequest) => {
    if (request.type === 'heap') send({ type: 'heap', heapUsedBytes: process.memoryUsage().heapUsed });
    if (request.type === 'stop') void stop();
  });
  process.once('disconnect', () => void stop());
  const ready: RuntimeReady = {
    type: 'ready',
    baseUrl: runtime.baseUrl,
    env: runtime.env,
    tables: runtime.tables,
    demoClient: { clientId: runtime.demoClient.clientId, clientSecret: runtime.demoClient.clientSecret },
  };
  send(ready);
} catch (error) {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

import { configDefaults, defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/support/sequencer';

const INFRA = 'test/infra/**/*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Three on two cores: the end-to-end files spend much of their time waiting (for queues, retries,
    // receivers, a browser), and with two workers the cores sat idle a third of the run; one DynamoDB
    // Local serves them all and is not what they wait for.
    maxWorkers: 3,
    // The use cases count metrics; in tests nothing publishes them.
    env: { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_TRACE_ENABLED: 'false' },
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'infra',
          include: [INFRA],
          // The infrastructure tests run in shared workers, one module graph for the files each runs:
          // the CDK is loaded, and the default service stack synthesized (test/support/service-stack.ts),
          // once per worker instead of once per file. They need no DynamoDB Local.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, INFRA],
          // One DynamoDB Local for the whole run (test/support/global-setup.ts), and the workspace app built.
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});

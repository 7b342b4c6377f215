import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const INFRA = 'test/infra/**/*.test.ts';

/**
 * Files that take minutes where most take seconds: started first, they run beside the many short
 * files instead of after them, when a run would wait for them alone. Those that keep the cores busy
 * (the crash drill's 20,000 watchers, `npm start` started again and again, the CDK CLI bundling every
 * function, Java engines started and killed) alternate with those that mostly wait, so the first
 * workers do not all fight for the two cores at once. Measured on a two-core machine; a file missing
 * from the list only starts later.
 */
const LONG_FIRST = [
  'test/e2e/crash-safety.test.ts',
  'test/e2e/sdk.test.ts',
  'test/integration/local/main.test.ts',
  'test/e2e/openapi-properties.test.ts',
  'test/infra/cdk-synth.test.ts',
  'test/e2e/workspace-browser.test.ts',
  'test/integration/local/dynamodb-local.test.ts',
  'test/e2e/receiver-outage.test.ts',
  'test/e2e/first-start-webhooks.test.ts',
  'test/e2e/reference-browser.test.ts',
  'test/e2e/deliveries.test.ts',
  'test/e2e/oversized-input.test.ts',
];

const rank = (spec: TestSpecification): number => {
  const index = LONG_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return index === -1 ? LONG_FIRST.length : index;
};

/** The usual order (failed first, then longest or largest first), with the known long files ahead of all, whatever their project. */
class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const usual = await super.sort(files);
    return usual
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.position - b.position)
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores, two workers: a third keeps the cores busier, but starves the crash and fan-out
    // tests, whose runtimes restart JVMs and fan out to 20,000 watchers within fixed budgets.
    maxWorkers: 2,
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

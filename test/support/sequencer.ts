import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take minutes where most take seconds, longest first: started first, they run beside
 * the many short files instead of after them, when a run would wait for them alone. Measured on a
 * two-core machine; a file missing from the list only starts later.
 */
const LONG_FIRST = [
  'test/e2e/crash-safety.test.ts',
  'test/integration/local/main.test.ts',
  'test/infra/cdk-synth.test.ts',
  'test/integration/local/dynamodb-local.test.ts',
  'test/e2e/sdk.test.ts',
  'test/e2e/openapi-properties.test.ts',
  'test/e2e/workspace-browser.test.ts',
  'test/e2e/receiver-outage.test.ts',
  'test/e2e/first-start-webhooks.test.ts',
  'test/e2e/reference-browser.test.ts',
  'test/e2e/oversized-input.test.ts',
  'test/e2e/deliveries.test.ts',
];

const rank = (spec: TestSpecification): number => {
  const index = LONG_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return index === -1 ? LONG_FIRST.length : index;
};

/** The usual order (failed first, then longest or largest first), with the known long files ahead of all, whatever their project. */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const usual = await super.sort(files);
    return usual
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.position - b.position)
      .map(({ spec }) => spec);
  }
}

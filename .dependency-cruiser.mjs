/**
 * What may import what, as dependency-cruiser checks it (`npm run lint:deps`, part of `npm test`).
 * The "What may import what" table of docs/architecture.md is written from these rules
 * (`npx tsx tools/dependency-rules-table.ts`), and a test fails when the two differ.
 *
 * Paths are written with `under(…)`: folder prefixes end in "/", files name themselves; `<name>`
 * captures one path segment in `from`, and `<same>` is that segment again in `to`.
 */

/** A regular expression matching paths under any of these folders, or these files exactly. */
function under(...paths) {
  const alternatives = paths.map((path) =>
    path
      .replaceAll('.', '\\.')
      .replace('<name>', '([^/]+)')
      .replace('<same>', '$1')
      .replace(/(\.ts)$/, '$1$$'),
  );
  return `^(?:${alternatives.join('|')})`;
}

/** What `npm run lint:deps` cruises: every folder of code (the workspace's .tsx pages aside, see doNotFollow). */
export const CRUISED_FOLDERS = [
  'functions',
  'shared',
  'infra',
  'local',
  'cli',
  'demo',
  'tools',
  'test',
  'bin',
  'packages/client/src',
  'web',
];

/** Packages and Node's own modules, which the folder rules let through (the package rules judge packages). */
const PACKAGES = 'node_modules/';
const NODE_BUILTINS = ['core'];

/**
 * The shared/ modules that may name `aws-lambda` types: adapters at the Lambda edge, each for the
 * event shape it reads. The domain and the use cases stay free of Lambda.
 */
export const LAMBDA_EDGE_ADAPTERS = {
  'shared/http/lambda.ts': "turns API Gateway's payload 2.0 events into HttpRequests and the answers back",
  'shared/observability/middleware.ts': "the middy stack every handler is wrapped in takes Lambda's Context",
  'shared/webhooks/delivery-queue.ts': 'reads an SQS event and answers batchItemFailures for the deliveries queue',
  'shared/aws/stream-records.ts': 'converts DynamoDB Streams API records to the shape Lambda hands the detector',
  'shared/webhooks/profile-stream-record.ts': 'reads old and new profiles out of a DynamoDB stream record',
  'shared/webhooks/record-detection.ts': 'takes one stream record through the detector, for the detector and the replayer',
  'shared/webhooks/stream-replay.ts': 'replays stream records in the shape the detector receives them',
  'shared/webhooks/dynamo-stream-reader.ts': 'reads a batch back from the stream in the shape Lambda delivered it',
};

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'functions-import-only-shared',
      comment:
        'A function is a thin adapter over shared/: nothing of the CDK app, the local runtime, the CLI, demo data, tools or tests is deployed.',
      severity: 'error',
      from: { path: under('functions/') },
      to: { pathNot: under('functions/', 'shared/', PACKAGES), dependencyTypesNot: NODE_BUILTINS },
    },
    {
      name: 'functions-import-no-other-function',
      comment: "A function's folder is its own; what several functions compose sits at the root of functions/ or in shared/.",
      severity: 'error',
      from: { path: under('functions/<name>') },
      to: { path: under('functions/<name>/'), pathNot: under('functions/<same>/') },
    },
    {
      name: 'shared-imports-only-shared',
      comment: 'shared/ is deployed with every function that uses it, so it reaches nothing outside itself but packages.',
      severity: 'error',
      from: { path: under('shared/') },
      to: { pathNot: under('shared/', PACKAGES), dependencyTypesNot: NODE_BUILTINS },
    },
    {
      name: 'demo-imports-only-shared',
      comment: 'Demo data is built from the domain, and from nothing that runs it.',
      severity: 'error',
      from: { path: under('demo/') },
      to: { pathNot: under('demo/', 'shared/', PACKAGES), dependencyTypesNot: NODE_BUILTINS },
    },
    {
      name: 'demo-only-for-local-cli-tools-tests',
      comment:
        'Generated values never reach a deployed function or the CDK app: only the local runtime, the CLI, tools and tests seed with them.',
      severity: 'error',
      from: { pathNot: under('demo/', 'local/', 'cli/', 'tools/', 'test/') },
      to: { path: under('demo/') },
    },
    {
      name: 'infra-imports-only-shared',
      comment: 'The CDK app reads table, queue and grant definitions from shared/, and bundles functions by path, never by import.',
      severity: 'error',
      from: { path: under('infra/') },
      to: { pathNot: under('infra/', 'shared/', PACKAGES), dependencyTypesNot: NODE_BUILTINS },
    },
    {
      name: 'local-imports',
      comment:
        'The local runtime plays the AWS topology from the catalogue and the bundle options (plain data), seeds demo data, and runs the same shared/ code.',
      severity: 'error',
      from: { path: under('local/') },
      to: {
        pathNot: under('local/', 'shared/', 'demo/', 'infra/catalogue.ts', 'infra/bundling/options.ts', PACKAGES),
        dependencyTypesNot: NODE_BUILTINS,
      },
    },
    {
      name: 'cli-imports',
      comment:
        "The operator CLI reads the catalogue, stage settings and stack output ids (plain data), drives the SDK, and reaches the local runtime's data through its paths, key files and engine.",
      severity: 'error',
      from: { path: under('cli/') },
      to: {
        pathNot: under(
          'cli/',
          'shared/',
          'demo/',
          'packages/client/',
          'infra/catalogue.ts',
          'infra/stage-settings.ts',
          'infra/register-import-concurrency.ts',
          'infra/constructs/outputs.ts',
          'local/paths.ts',
          'local/runtime-file.ts',
          'local/key-file.ts',
          'local/kms.ts',
          'local/dynamodb-local.ts',
          PACKAGES,
        ),
        dependencyTypesNot: NODE_BUILTINS,
      },
    },
    {
      name: 'cdk-only-in-infra',
      comment: 'Only the CDK app (and its tests) loads the CDK, even indirectly: the CLI and the local runtime start without it.',
      severity: 'error',
      from: { pathNot: under('infra/', 'test/') },
      to: { path: under('node_modules/aws-cdk-lib/', 'node_modules/cdk-nag/', 'node_modules/constructs/'), reachable: true },
    },
    {
      name: 'deployed-code-uses-no-dev-dependency',
      comment:
        'What deployed code runs is a dependency; devDependencies are what builds and tests it. Type packages (@types/…) are erased, and may be named.',
      severity: 'error',
      from: { path: under('functions/', 'shared/') },
      to: { dependencyTypes: ['npm-dev'], pathNot: under('node_modules/@types/') },
    },
    {
      name: 'deployed-code-uses-declared-packages',
      comment: "A package a deployed module imports is listed in package.json, not merely installed as another package's dependency.",
      severity: 'error',
      from: { path: under('functions/', 'shared/') },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'unknown', 'undetermined'] },
    },
    {
      name: 'aws-lambda-types-only-at-the-edge',
      comment: 'Lambda event types appear only in the shared/ adapters listed in LAMBDA_EDGE_ADAPTERS and in functions/.',
      severity: 'error',
      from: { path: under('shared/'), pathNot: under(...Object.keys(LAMBDA_EDGE_ADAPTERS)) },
      to: { path: under('node_modules/@types/aws-lambda/') },
    },
    {
      name: 'test-code-only-in-tests',
      comment: 'Tests and their support code are imported by tests alone.',
      severity: 'error',
      from: { pathNot: under('test/') },
      to: { path: under('test/') },
    },
    {
      name: 'tools-are-entry-points',
      comment: 'A developer script is run, not imported, except by its tests.',
      severity: 'error',
      from: { pathNot: under('tools/', 'test/') },
      to: { path: under('tools/') },
    },
    {
      name: 'imports-resolve',
      comment: 'Every import names a module that exists, so no rule above is passed by a path it cannot read.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-module-cycles',
      comment: 'Modules import one another one way only, type imports included (the parser, swc, does not tell them apart).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'Folders (shared/companies, shared/webhooks, …) depend on one another one way only; a folder does not count as depending on the folders inside it.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    parser: 'swc',
    moduleSystems: ['es6', 'cjs'],
    // The workspace's .tsx pages are parsed by Vite, not here; an import of one still counts.
    doNotFollow: { path: ['(^|/)node_modules/', '\\.tsx$'] },
    exclude: { path: ['(^|/)dist/', '^cdk\\.out/'] },
    enhancedResolveOptions: {
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json', '.tsx'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      exportsFields: ['exports'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

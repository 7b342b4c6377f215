import { fileURLToPath } from 'node:url';

/**
 * What the stack (infra/constructs/bureau-function.ts) and the bundle benchmark give esbuild, kept
 * in one place so the benchmark measures the bundles that are deployed.
 */
export const lambdaBundleAliases: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': fileURLToPath(new URL('../../shared/aws/lambda-credentials.ts', import.meta.url)),
};

/** Some dependencies are CommonJS and call require(); an ES module has no require unless we make one. */
export const esmRequireBanner =
  "import { createRequire as bureauCreateRequire } from 'node:module'; const require = bureauCreateRequire(import.meta.url);";

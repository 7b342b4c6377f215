/**
 * The Node.js the deployed functions run on. The stack deploys this runtime, and `npm test` runs the
 * suite on this exact release too (from the npm registry) when the machine's Node.js is another major.
 */
export const LAMBDA_NODE = { major: 24, release: '24.21.0' } as const;

/** Lambda's runtime identifier for it, as CloudFormation names it. */
export const lambdaRuntimeName = `nodejs${LAMBDA_NODE.major}.x`;

import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the deployed bundles (see infra/bundling/options.ts).
 * Lambda hands every function its role's credentials in environment variables, so the rest of the
 * default chain (profiles, SSO, web identity, instance metadata, and the STS and SSO clients they
 * carry) is code a function loads at every cold start and never runs.
 */
export const defaultProvider = fromEnv;

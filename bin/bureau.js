#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

// The project supports Node 20; the SDK's notice about its future Node 22 requirement is noise to operators.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { run } = await import('../cli/main.ts');
process.exitCode = await run(process.argv.slice(2));

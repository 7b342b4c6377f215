/*
 * The SDK's quick start against a running Bureau (`npm start` prints the demo client's credentials):
 *   BUREAU_CLIENT_ID=cli_… BUREAU_CLIENT_SECRET=bsk_… npx tsx packages/client/examples/quick-start.ts
 * An application imports '@bureau/client' instead of the source path.
 */
import { BureauApiError, createClient } from '../src/index.js';

const bureau = createClient({
  baseUrl: process.env.BUREAU_URL ?? 'http://127.0.0.1:3000',
  clientId: process.env.BUREAU_CLIENT_ID ?? '',
  clientSecret: process.env.BUREAU_CLIENT_SECRET ?? '',
});

try {
  const { items } = await bureau.search({ q: 'cpa gates', jurisdiction: 'GB' });
  const first = items[0];
  if (!first) throw new Error('No company matches "cpa gates" yet: the demo companies may still be loading.');
  const profile = await bureau.profile(first.companyNumber, { jurisdiction: first.jurisdiction });
  console.log(`${profile.name} (${profile.jurisdiction} ${profile.companyNumber}): risk of failure ${profile.riskOfFailure.level}`);
  for await (const watch of bureau.watches.all()) console.log(`watching ${watch.jurisdiction} ${watch.companyNumber} since ${watch.watchedSince}`);
} catch (error) {
  if (error instanceof BureauApiError) console.error(`${error.status} ${error.code}: ${error.detail}`);
  else console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}

/**
 * The quick start of the README, runnable from a checkout against the local runtime (npm start):
 *   BUREAU_CLIENT_ID=… BUREAU_CLIENT_SECRET=… npx tsx packages/client/examples/quick-start.ts
 * An application imports from '@bureau/client'; this file imports the source so it needs no build.
 */
import { BureauApiError, createClient } from '../src/index.js';

const clientId = process.env.BUREAU_CLIENT_ID;
const clientSecret = process.env.BUREAU_CLIENT_SECRET;
if (!clientId || !clientSecret) {
  console.error('Set BUREAU_CLIENT_ID and BUREAU_CLIENT_SECRET (npm start prints the demo client’s).');
  process.exit(2);
}

const bureau = createClient({ baseUrl: process.env.BUREAU_URL ?? 'http://127.0.0.1:3000', clientId, clientSecret });
try {
  const { items } = await bureau.search({ q: process.argv[2] ?? 'cpa gates', jurisdiction: 'GB' });
  for (const item of items) console.log(`${item.companyNumber}  ${item.name}  (${item.match.type})`);
  const first = items[0];
  if (first) {
    const profile = await bureau.profile(first.companyNumber, { jurisdiction: first.jurisdiction });
    console.log(`\n${profile.name}: ${profile.tradingStatus.status}, risk of failure ${profile.riskOfFailure.level}`);
  }
  console.log('\nWatched companies:');
  for await (const watch of bureau.watches.all()) console.log(`${watch.jurisdiction} ${watch.companyNumber}  since ${watch.watchedSince}`);
} catch (error) {
  if (!(error instanceof BureauApiError)) throw error;
  console.error(`${error.status} ${error.code}: ${error.detail ?? ''} (request ${error.requestId ?? 'unknown'})`);
  process.exitCode = 1;
}

import { rmSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { restoreDemoDatabase } from './demo-database';
import { JavaCompilerMissingError, JavaMissingError } from './dynamodb-local';
import { PortInUseError } from './http-server';
import { defaultDataDir, deleteDataDir, localPaths } from './paths';
import { InvalidSettingError, type LocalRuntime, RuntimeAlreadyRunningError, startLocalRuntime } from './runtime';
import { readRuntimeInfo } from './runtime-file';

const usage = `Usage: npm start [-- --fresh] [-- --in-memory]

Runs Bureau on this machine: DynamoDB Local, an SQS emulator and the HTTP API.
  --fresh      delete the data folder first (tables, signing keys, demo client)
  --in-memory  keep the database in memory for this run only
Environment: PORT (default 3000), BUREAU_DATA_DIR (default .bureau/), BUREAU_DYNAMODB_PORT,
BUREAU_DEMO_CLIENT_ID and BUREAU_DEMO_CLIENT_SECRET (fix the demo client's credentials).`;

/** Errors whose message says everything: print it, no stack trace. */
const explained = [JavaMissingError, JavaCompilerMissingError, PortInUseError, RuntimeAlreadyRunningError, InvalidSettingError];

/** Relative to the current directory when inside it, absolute otherwise. */
function displayPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere && !fromHere.startsWith('..') && !isAbsolute(fromHere) ? fromHere : path;
}

function banner(runtime: LocalRuntime, seconds: number, inMemory: boolean): string {
  const { clientId, clientSecret, disabled } = runtime.demoClient;
  const where = displayPath(runtime.dataDir);
  const tokenRequest = JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  const lines = [
    '',
    `Bureau is running at ${runtime.baseUrl} (ready in ${seconds.toFixed(1)} s)`,
    '',
    disabled ? `Demo client (disabled: enable it with \`npx bureau clients enable ${clientId}\`)` : 'Demo client',
    `  client_id:     ${clientId}`,
    `  client_secret: ${clientSecret}`,
    '',
    'Get a token:',
    `  curl -s -X POST ${runtime.baseUrl}/v1/oauth/token -H 'content-type: application/json' \\`,
    `    -d '${tokenRequest}'`,
    'Then call the API with it:',
    `  curl -H "Authorization: Bearer $TOKEN" '${runtime.baseUrl}/v1/search?q=CPA%20GATES&jurisdiction=GB'`,
    `  curl -H "Authorization: Bearer $TOKEN" '${runtime.baseUrl}/v1/profile/15380840?jurisdiction=GB'`,
    'Receive its webhooks: `npx bureau webhooks listen`, register http://127.0.0.1:4000/webhooks, then',
    '  `npx bureau companies change 15380840` (the README walks through it).',
    '',
    `Workspace (webhooks and deliveries in a browser): ${runtime.workspace.url}`,
    runtime.workspace.invitationLink
      ? `  One-time link for ${runtime.workspace.demoPerson} to choose a password (24 h): ${runtime.workspace.invitationLink}`
      : `  Sign in as ${runtime.workspace.demoPerson}; invite more people with \`npx bureau workspace invite --client ${clientId} --email <address>\`.`,
    '',
    inMemory
      ? 'Data is in memory: it goes when this stops.'
      : `Data lives in ${where}/ and survives restarts. Start fresh: stop this, then \`npm start -- --fresh\`.`,
    'Press Ctrl-C to stop.',
    '',
  ];
  return lines.join('\n');
}

/**
 * A data folder without a database gets the demo companies as a prebuilt database file, in a second
 * rather than the minutes an item-by-item load takes on disk. Stream positions kept in the folder
 * belonged to a database that is gone, so they go too: the restored streams start empty.
 */
async function restoreDemoCompanies(dataDir: string): Promise<void> {
  const paths = localPaths(dataDir);
  const outcome = await restoreDemoDatabase(paths.dynamodb);
  if (outcome.restored) {
    rmSync(paths.streamCheckpoints, { recursive: true, force: true });
    console.log(`Demo companies restored from the prebuilt database in ${outcome.seconds.toFixed(1)} s.`);
  } else if (outcome.reason === 'prebuilt database is of another dataset') {
    console.log('The prebuilt demo database is of another dataset (rebuild it: `npx tsx tools/build-demo-database.ts`).');
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { fresh: { type: 'boolean' }, 'in-memory': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const dataDir = defaultDataDir();
  if (values.fresh) {
    const running = readRuntimeInfo(dataDir);
    if (running) throw new RuntimeAlreadyRunningError(dataDir, running.pid);
    deleteDataDir(dataDir);
    console.log(`Deleted ${displayPath(dataDir)}/: starting fresh.`);
  }

  // Signals are caught from the start: one arriving while Java boots must still lead to a clean stop.
  let exitCode: number | undefined;
  let requestStop: () => void = () => {};
  const stopRequested = new Promise<void>((resolve) => {
    requestStop = resolve;
  });
  const shutdown = (code: number) => {
    if (exitCode !== undefined) return;
    exitCode = code;
    requestStop();
  };
  process.once('SIGINT', () => shutdown(0));
  process.once('SIGTERM', () => shutdown(0));
  // When the console goes away (its terminal or pipe closed), nothing printed can be read, and each
  // line written would fail again, reported on the console that failed: stop as on SIGTERM instead.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => shutdown(0));
  process.on('uncaughtException', (error) => {
    console.error('Unexpected error:', error);
    shutdown(1);
  });
  process.on('unhandledRejection', (error) => {
    console.error('Unexpected error:', error);
    shutdown(1);
  });

  const started = performance.now();
  // Not beside a runtime that already uses the folder: the start below refuses, and says why.
  if (values['in-memory'] !== true && !readRuntimeInfo(dataDir)) await restoreDemoCompanies(dataDir);
  const runtime = await startLocalRuntime({
    dataDir,
    inMemory: values['in-memory'] === true,
    seedDemoData: true,
    onFatal: (message) => {
      console.error(message);
      shutdown(1);
    },
  });
  if (exitCode === undefined) console.log(banner(runtime, (performance.now() - started) / 1000, values['in-memory'] === true));

  await stopRequested;
  console.log('Stopping…');
  try {
    await runtime.stop();
  } catch (error) {
    console.error('Stopping failed:', error);
    return 1;
  }
  return exitCode ?? 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (explained.some((type) => error instanceof type)) console.error((error as Error).message);
    else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
      console.error(`${error.message}\n\n${usage}`);
    else console.error('The local runtime could not start:', error);
    process.exit(1);
  },
);

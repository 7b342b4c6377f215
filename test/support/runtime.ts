import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import type { HttpExchange } from '../../local/http-server';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime';
import { BureauApiError, requestToken } from '../../packages/client/src/index';
import { ApiContract, describeViolations } from './contract';

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface TestRuntime {
  readonly baseUrl: string;
  readonly demoClient: ClientCredentials;
  /** The whole runtime: table names, endpoints, queues, env. */
  readonly runtime: LocalRuntime;
  /** A fresh access token for the demo client, or for the credentials given. */
  fetchToken(credentials?: ClientCredentials): Promise<string>;
  stop(): Promise<void>;
}

export interface TestRuntimeOptions {
  /**
   * Start a DynamoDB Local of the runtime's own, as `npm start` does, instead of using the run's: for
   * the tests of that engine's life within the runtime (its folder, its table names, its stop).
   */
  readonly ownEngine?: boolean;
}

/**
 * One local runtime for a test file: random port, a temporary data folder, and only the environment
 * given (function settings, demo client): nothing of this process's own. Its tables live in the
 * run's DynamoDB Local under a prefix of their own, so files running side by side never meet, and
 * no file waits for a Java engine to start.
 */
export async function startTestRuntime(environment: Record<string, string> = {}, options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-e2e-'));
  // Every answer the API gives a test is checked against its OpenAPI document, so an undocumented
  // status, field or header fails the file that met it.
  const contract = new ApiContract();
  const violations: Array<{ exchange: HttpExchange; problems: string[] }> = [];
  const onExchange = (exchange: HttpExchange) => {
    if (!contract.covers(exchange)) return;
    const problems = contract.check(exchange);
    if (problems.length > 0) violations.push({ exchange, problems });
  };
  const sharedDynamoDb = options.ownEngine
    ? undefined
    : { endpoint: inject('dynamodbEndpoint'), tablePrefix: `rt-${randomUUID().slice(0, 8)}-` };
  const runtime = await startLocalRuntime({
    port: 0,
    inMemory: true,
    dataDir,
    quiet: true,
    environment,
    onExchange,
    ...(sharedDynamoDb ? { sharedDynamoDb } : {}),
  });
  const demoClient = { clientId: runtime.demoClient.clientId, clientSecret: runtime.demoClient.clientSecret };
  return {
    baseUrl: runtime.baseUrl,
    demoClient,
    runtime,
    async fetchToken(credentials = demoClient) {
      try {
        // No retries and a generous limit: a test that meets a 429 or a slow first start must see it as it was.
        const token = await requestToken({ baseUrl: runtime.baseUrl, ...credentials, maxRetries: 0, timeoutMs: 120_000 });
        return token.accessToken;
      } catch (error) {
        if (error instanceof BureauApiError)
          throw new Error(`token request failed with ${error.status}: ${JSON.stringify(error.body)}`, { cause: error });
        throw error;
      }
    },
    async stop() {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (violations.length > 0)
        throw new Error(`${violations.length} answers of the API break its OpenAPI document:\n${describeViolations(violations)}`);
    },
  };
}

/** How long a test file may take to stop its runtime (see useTestRuntime). */
const STOP_BUDGET_MS = 180_000;

/**
 * Starts the runtime before the file's tests and stops it after them; call at the top level of a
 * test file and read the runtime inside tests: `const bureau = useTestRuntime(); … bureau().baseUrl`.
 */
export function useTestRuntime(environment: Record<string, string> = {}, options: TestRuntimeOptions = {}): () => TestRuntime {
  let started: TestRuntime | undefined;
  beforeAll(async () => {
    started = await startTestRuntime(environment, options);
  });
  // A stop finishes the work in flight (a function's batch of stream records, an import's batch) as a
  // deployed runtime would. Behind the one DynamoDB Local the whole suite shares, with demo events at
  // 50 a second, that took 19 to 51 s in full e2e runs, and over the default 60 s in some CI runs.
  afterAll(async () => {
    await started?.stop();
  }, STOP_BUDGET_MS);
  return () => {
    if (!started) throw new Error('The test runtime is not running: call useTestRuntime() at the top level of the test file');
    return started;
  };
}

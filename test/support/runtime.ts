import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
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

/**
 * One local runtime for a test file: random port, database in memory, a temporary data folder, and
 * only the environment given (function settings, demo client): nothing of this process's own.
 */
export async function startTestRuntime(environment: Record<string, string> = {}): Promise<TestRuntime> {
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
  const runtime = await startLocalRuntime({ port: 0, inMemory: true, dataDir, quiet: true, environment, onExchange });
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

/**
 * Starts the runtime before the file's tests and stops it after them; call at the top level of a
 * test file and read the runtime inside tests: `const bureau = useTestRuntime(); … bureau().baseUrl`.
 */
export function useTestRuntime(environment: Record<string, string> = {}): () => TestRuntime {
  let started: TestRuntime | undefined;
  beforeAll(async () => {
    started = await startTestRuntime(environment);
  });
  afterAll(async () => {
    await started?.stop();
  });
  return () => {
    if (!started) throw new Error('The test runtime is not running: call useTestRuntime() at the top level of the test file');
    return started;
  };
}

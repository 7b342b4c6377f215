import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { ensureWorkspaceBuilt } from '../../local/workspace-build';

/**
 * One in-memory DynamoDB Local for the whole run (each test file makes its own uniquely named tables),
 * and the workspace app built.
 */
export default async function setup(project: TestProject) {
  // Built once before any worker starts a runtime, so no two runtimes build it at the same time.
  await ensureWorkspaceBuilt();
  const workDir = mkdtempSync(join(tmpdir(), 'bureau-test-ddb-'));
  const ddb = await startDynamoDbLocal({ workDir });
  project.provide('dynamodbEndpoint', ddb.endpoint);
  return async () => {
    await ddb.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

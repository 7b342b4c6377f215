import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local';

/** One in-memory DynamoDB Local for the whole run; each test file makes its own uniquely named tables. */
export default async function setup(project: TestProject) {
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

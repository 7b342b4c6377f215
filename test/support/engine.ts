import { spawnSync } from 'node:child_process';

/** Whether a DynamoDB Local started by this project still runs on the port of this endpoint or port. */
export function engineRunningOn(endpointOrPort: string | number): boolean {
  const port = typeof endpointOrPort === 'number' ? endpointOrPort : new URL(endpointOrPort).port;
  return spawnSync('pgrep', ['-f', `LoopbackDynamoDbLocal.java -port ${port} `]).status === 0;
}

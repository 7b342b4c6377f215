import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../../infra/local/paths';

describe('DynamoDB Local launcher', () => {
  it('leaves no Java process behind when its Node.js process exits without stopping it', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/exit-without-stop.ts')], {
      cwd: repositoryRoot,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const endpoint = run.stdout.trim();

    expect(run.status, run.stderr).toBe(0);
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = new URL(endpoint).port;
    expect(spawnSync('pgrep', ['-f', `DynamoDBLocal.jar -port ${port} `]).status).toBe(1);
  });
});

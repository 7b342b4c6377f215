import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { buildDemoDatabase, demoDatabaseFiles } from '../local/demo-database';
import { repositoryRoot } from '../local/paths';

/**
 * Rebuilds demo/database/ (the demo companies as DynamoDB Local's database file, compressed), which
 * a first start on disk copies in: run it after a change to the demo dataset or to the items the
 * store writes (a test fails until it is run). BUREAU_BUILD_DIR chooses where the engine works
 * (default a temporary folder; a folder in memory, such as /dev/shm, makes the load faster).
 */
const parent = process.env.BUREAU_BUILD_DIR ?? tmpdir();
const workDir = mkdtempSync(join(parent, 'bureau-demo-database-'));
try {
  const report = await buildDemoDatabase(workDir, (line) => console.log(line));
  const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
  console.log(
    `Built ${relative(repositoryRoot, demoDatabaseFiles.compressed)}: loaded in ${report.loadSeconds.toFixed(1)} s, ` +
      `${mb(report.bytes)} as DynamoDB Local keeps it, ${mb(report.compressedBytes)} compressed.`,
  );
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

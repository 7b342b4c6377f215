import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  DescribeExecutionCommand,
  DescribeMapRunCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  ListMapRunsCommand,
  type SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { Upload } from '@aws-sdk/lib-storage';
import cliProgress from 'cli-progress';
import type { ImportSummary } from '../shared/register/import/import-summary';
import { newImportId, summaryKeyOf, uploadKeyOf } from '../shared/register/import/object-keys';
import { ImportObjects } from '../shared/register/import/s3-objects';
import type { CliIo } from './io';

/** A deployed stack's register import: its bucket and state machine, from the stack's outputs. */
export interface RegisterImportTarget {
  readonly s3: S3Client;
  readonly sfn: SFNClient;
  readonly bucket: string;
  readonly stateMachineArn: string;
  /** How often the execution is looked at; default five seconds. */
  readonly pollIntervalMs?: number;
}

const POLL_INTERVAL_MS = 5_000;
/** Plain progress lines (no terminal) come at most this often. */
const PROGRESS_LINE_INTERVAL_MS = 30_000;

export interface RegisterImportRun {
  readonly status: string;
  /** The top-level states the execution entered, in order. */
  readonly states: readonly string[];
  /** Why the execution failed, as Step Functions says: a refused file is named here. */
  readonly error?: string;
  readonly cause?: string;
  readonly summary?: ImportSummary;
}

interface Progress {
  update(label: string, done: number, total: number): void;
  stop(): void;
}

function progressOf(io: CliIo, terminal: boolean): Progress {
  if (!terminal) {
    let last = 0;
    let lastLabel = '';
    return {
      update: (label, done, total) => {
        if (label === lastLabel && Date.now() - last < PROGRESS_LINE_INTERVAL_MS) return;
        last = Date.now();
        lastLabel = label;
        io.err(`progress: ${label} ${done} of ${total}`);
      },
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: '{label} [{bar}] {percentage}% | {value}/{total}', hideCursor: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (label, done, total) => {
      if (!started) bar.start(total, done, { label });
      started = true;
      bar.setTotal(Math.max(total, 1));
      bar.update(done, { label });
    },
    stop: () => bar.stop(),
  };
}

/**
 * Uploads a register file to the stack's bucket (multipart), starts the import's state machine on it
 * and follows it to the end: the upload's bytes, then the map run's batches, then the summary.
 */
export async function runRegisterImport(
  io: CliIo,
  target: RegisterImportTarget,
  file: string,
  options: { asOf: string; progress: boolean; forceSweep?: string },
): Promise<RegisterImportRun> {
  const importId = newImportId(new Date(), randomBytes(3).toString('hex'));
  const key = uploadKeyOf(importId, file);
  const progress = options.progress ? progressOf(io, process.stderr.isTTY === true) : undefined;
  const size = (await stat(file)).size;
  try {
    const upload = new Upload({ client: target.s3, params: { Bucket: target.bucket, Key: key, Body: createReadStream(file) } });
    upload.on('httpUploadProgress', (sent) => progress?.update('uploading (bytes)', sent.loaded ?? 0, size));
    await upload.done();
    const { executionArn } = await target.sfn.send(
      new StartExecutionCommand({
        stateMachineArn: target.stateMachineArn,
        name: importId,
        input: JSON.stringify({ key, asOf: options.asOf, ...(options.forceSweep ? { forceSweep: options.forceSweep } : {}) }),
      }),
    );
    io.err(`uploaded ${basename(file)} to s3://${target.bucket}/${key}; import ${importId} started`);
    let status = 'RUNNING';
    let ended: { error?: string; cause?: string } = {};
    while (status === 'RUNNING') {
      await new Promise((resolve) => setTimeout(resolve, target.pollIntervalMs ?? POLL_INTERVAL_MS));
      const described = await target.sfn.send(new DescribeExecutionCommand({ executionArn }));
      status = described.status ?? 'RUNNING';
      ended = { ...(described.error ? { error: described.error } : {}), ...(described.cause ? { cause: described.cause } : {}) };
      const [mapRun] = (await target.sfn.send(new ListMapRunsCommand({ executionArn }))).mapRuns ?? [];
      if (mapRun?.mapRunArn) {
        const counts = (await target.sfn.send(new DescribeMapRunCommand({ mapRunArn: mapRun.mapRunArn }))).itemCounts;
        if (counts) progress?.update('importing (batches)', (counts.succeeded ?? 0) + (counts.failed ?? 0), counts.total ?? 0);
      } else {
        progress?.update('splitting', 0, 1);
      }
    }
    progress?.stop();
    const states = await statesEntered(target.sfn, executionArn as string);
    const summary = await new ImportObjects(target.s3, target.bucket).readJson<ImportSummary>(summaryKeyOf(key)).catch(() => undefined);
    return { status, states, ...ended, ...(summary ? { summary } : {}) };
  } finally {
    progress?.stop();
  }
}

/** The states an execution passed, from its history (top-level states only: a Map's children enter none here). */
async function statesEntered(sfn: SFNClient, executionArn: string): Promise<string[]> {
  const states: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, ...(nextToken ? { nextToken } : {}) }));
    for (const event of page.events ?? ([] as HistoryEvent[])) {
      const name = event.stateEnteredEventDetails?.name;
      if (name && event.type?.endsWith('StateEntered')) states.push(name);
    }
    nextToken = page.nextToken;
  } while (nextToken);
  return states;
}

/** The summary as the local import prints its own, with the failed batches named. */
export function printRegisterImportSummary(io: CliIo, file: string, run: RegisterImportRun, rejectsShown: number): void {
  const summary = run.summary;
  io.out(`Import of ${basename(file)}: ${run.status}`);
  if (run.states.length > 0) io.out(`states: ${run.states.join(' → ')}`);
  if (run.error) io.err(`${run.error}: ${run.cause ?? ''}`);
  if (!summary) return;
  io.out(
    `${summary.read} rows read: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.rejected} rejected`,
  );
  if (summary.sweep) {
    const { gone } = summary.sweep;
    io.out(`${gone} ${gone === 1 ? 'company' : 'companies'} no longer on the register marked gone`);
  }
  if (summary.sweepGuard && !summary.sweepGuard.allowed) io.err(`Sweep refused: ${summary.sweepGuard.refusedBecause}`);
  if (summary.sweepGuard?.forced)
    io.err(
      `Sweep forced: ${summary.sweepGuard.listed} of ${summary.sweepGuard.listed + summary.sweepGuard.unlisted} register profiles listed`,
    );
  const changes = Object.entries(summary.changes);
  if (changes.length > 0) io.out(`changes: ${changes.map(([kind, count]) => `${kind} ${count}`).join(', ')}`);
  for (const [field, values] of Object.entries(summary.unknownValues)) {
    io.out(
      `unknown ${field}: ${Object.entries(values)
        .map(([value, count]) => `"${value}" ${count}`)
        .join(', ')}`,
    );
  }
  io.out(`summary written to ${summaryKeyOf(summary.uploadKey)}`);
  for (const error of summary.errors.slice(0, rejectsShown)) io.err(`  ${error.entry} line ${error.line}: ${error.message}`);
  for (const batch of summary.failedBatches)
    io.err(`failed batch ${batch.key} (${batch.entry} from line ${batch.firstLine}): ${batch.error} ${batch.cause}`);
}

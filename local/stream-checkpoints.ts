import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

interface ShardCheckpoint {
  /** The last sequence number fully handled (processed, filtered out, or sent to the failure destination). */
  sequenceNumber?: string;
  /** The shard is closed and every record in it has been handled: its children may start. */
  finished?: boolean;
}

interface CheckpointDocument {
  streamArn: string;
  shards: Record<string, ShardCheckpoint>;
}

/**
 * The event source mapping's position in a stream, kept in a JSON file so a restarted runtime
 * resumes after the last handled record. A file written for another stream (the table was
 * recreated) is ignored. Writes go through a temporary file and a rename, so a crash mid-write
 * leaves the previous position rather than a torn file.
 */
export class CheckpointFile {
  private readonly document: CheckpointDocument;

  constructor(
    private readonly file: string,
    streamArn: string,
  ) {
    this.document = CheckpointFile.read(file, streamArn);
  }

  private static read(file: string, streamArn: string): CheckpointDocument {
    try {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as CheckpointDocument;
      if (stored.streamArn === streamArn && typeof stored.shards === 'object' && stored.shards !== null) return stored;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
    }
    return { streamArn, shards: {} };
  }

  sequenceNumber(shardId: string): string | undefined {
    return this.document.shards[shardId]?.sequenceNumber;
  }

  isFinished(shardId: string): boolean {
    return this.document.shards[shardId]?.finished === true;
  }

  advance(shardId: string, sequenceNumber: string): void {
    this.document.shards[shardId] = { ...this.document.shards[shardId], sequenceNumber };
    this.save();
  }

  finish(shardId: string): void {
    this.document.shards[shardId] = { ...this.document.shards[shardId], finished: true };
    this.save();
  }

  private save(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.document, null, 2));
    renameSync(temporary, this.file);
  }
}

import type { Command } from 'commander';
import { cleanText } from '../../shared/register/register-text';
import { createEventApplier } from '../../shared/register/stream/apply-events';
import { DynamoSetAsideEvents, replaySetAside } from '../../shared/register/stream/set-aside';
import { isStreamName, STREAM_NAMES, type StreamName } from '../../shared/register/stream/stream-events';
import type { CliContext } from '../context';
import { formatTable } from '../format';
import { httpReplayDoor, replayStreamFile } from '../operations/stream-replay';
import { TargetError } from '../target';
import { UsageError } from '../usage-error';

function streamOf(value: string | undefined): StreamName | undefined {
  if (value === undefined) return undefined;
  if (!isStreamName(value)) throw new UsageError(`"${value}" is not a stream: one of ${STREAM_NAMES.join(', ')}`);
  return value;
}

/** `bureau streams …`: what the Companies House stream consumers could not apply. */
export function registerStreamCommands(program: Command, context: CliContext): void {
  const streams = program
    .command('streams')
    .description('the Companies House stream consumers: events set aside as unappliable, and recordings replayed locally')
    .addHelpText(
      'after',
      `
Examples:
  $ bureau streams set-aside
  $ bureau streams set-aside --stream companies --json
  $ bureau streams set-aside --replay
  $ bureau streams replay test/fixtures/register/streams/day.jsonl`,
    );

  streams
    .command('replay')
    .description(
      "publish a recording of the Companies House streams (one event a line, exactly as the register sends it) into the local runtime's register streams, in file order, each line into the stream its resource_kind belongs to; waits until the consumers have applied the last line and prints what each did",
    )
    .argument(
      '<file>',
      'the recording: JSON lines with resource_kind, resource_uri, resource_id, data and event {timepoint, published_at, type}',
    )
    .option('--wait <seconds>', 'how long to wait for the consumers at each step', (text) => {
      const seconds = Number(text);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600) throw new UsageError('--wait: whole seconds from 1 to 3600');
      return seconds;
    })
    .option('--json', 'print JSON, every line with its outcome')
    .addHelpText(
      'after',
      "\nA line keeps its own timepoint when it is after its stream's latest; otherwise only event.timepoint is renumbered.\nExit status: 0 when every line was published and applied (skipped and set aside included), 1 when a line was refused or not applied in time.",
    )
    .action(async (file: string, options: { wait?: number; json?: boolean }, command: Command) => {
      const target = await context.target();
      if (!target.registerStreamsReplay) {
        throw new TargetError(
          `${target.description} takes no replays: start the local runtime (npm start) and replay into it; a deployed stack reads Companies House itself`,
        );
      }
      const door = httpReplayDoor(target.registerStreamsReplay.url, target.registerStreamsReplay.token);
      const summary = await replayStreamFile(file, door, { ...(options.wait ? { waitMs: options.wait * 1000 } : {}) });
      if (options.json) context.io.out(JSON.stringify(summary, null, 2));
      else {
        context.io.out(
          `Published ${summary.published} line(s) of ${file}: ${summary.applied} applied, ${summary.unchanged} unchanged, ${summary.skipped} skipped, ${summary.setAside} set aside${summary.notAppliedInTime > 0 ? `, ${summary.notAppliedInTime} not applied in time` : ''}.`,
        );
        if (summary.renumbered > 0)
          context.io.out(`${summary.renumbered} line(s) were renumbered: their timepoints were not after their stream's latest.`);
        for (const entry of summary.lines.filter((line) => line.outcome === 'set-aside' || line.outcome === 'not-applied-in-time')) {
          context.io.out(`  line ${entry.line}: ${entry.stream} ${entry.timepoint} ${cleanText(entry.resourceUri)} ${entry.outcome}`);
        }
        for (const entry of summary.refused) context.io.out(`  line ${entry.line} refused: ${cleanText(entry.reason)}`);
        if (summary.setAside > 0) context.io.out('See them with: npx bureau streams set-aside');
      }
      if (summary.refused.length > 0 || summary.notAppliedInTime > 0) {
        command.error(`error: ${summary.refused.length} line(s) refused, ${summary.notAppliedInTime} not applied in time`, {
          exitCode: 1,
          code: 'bureau.streams.replay-incomplete',
        });
      }
    });

  streams
    .command('set-aside')
    .description(
      'list the stream events that failed alone for a lasting reason and were set aside so their stream moved on; --replay applies them again',
    )
    .option('--stream <name>', `only this stream (${STREAM_NAMES.join(', ')})`)
    .option(
      '--replay',
      'apply each again through the stream applier; those that now apply are removed, the others kept with their new error',
    )
    .option('--json', 'print JSON')
    .action(async (options: { stream?: string; replay?: boolean; json?: boolean }) => {
      const stream = streamOf(options.stream);
      const target = await context.target();
      if (!target.tables.registerStreams) throw new TargetError(`${target.description} names no register streams table`);
      const store = new DynamoSetAsideEvents(target.doc, target.tables.registerStreams);
      if (options.replay) {
        // Only the local runtime takes loopback receivers; its events came from its own register streams.
        const feed = target.loopbackReceivers ? 'bureau-local-stream' : 'companies-house-streaming-api';
        const apply = createEventApplier({ doc: target.doc, companiesTable: target.tables.companies, feed });
        const outcome = await replaySetAside(store, apply, stream);
        if (options.json) context.io.out(JSON.stringify(outcome, null, 2));
        else {
          context.io.out(`Replayed ${outcome.replayed} event(s): applied and no longer set aside.`);
          if (outcome.failing > 0) context.io.out(`${outcome.failing} event(s) failed again and stay set aside with the new error.`);
          if (outcome.unreplayable > 0) context.io.out(`${outcome.unreplayable} event(s) were too large to keep and cannot be replayed.`);
        }
        return;
      }
      const kept = await store.list(stream);
      if (options.json) {
        context.io.out(
          JSON.stringify(
            kept.map(({ event: _event, ...listed }) => listed),
            null,
            2,
          ),
        );
      } else if (kept.length === 0) {
        context.io.out('No stream events are set aside.');
      } else {
        // What the register sent is shown cleaned: an error message may quote it.
        context.io.out(
          formatTable(
            ['STREAM', 'TIMEPOINT', 'PUBLISHED', 'RESOURCE', 'SET ASIDE', 'REPLAYABLE', 'ERROR'],
            kept.map((entry) => [
              entry.stream,
              String(entry.timepoint),
              cleanText(entry.publishedAt),
              cleanText(entry.resourceUri),
              entry.setAsideAt,
              entry.event ? 'yes' : 'no',
              cleanText(entry.error, 'name'),
            ]),
          ),
        );
      }
    });
}

import type { Command } from 'commander';
import { cleanText } from '../../shared/register/register-text';
import { createEventApplier } from '../../shared/register/stream/apply-events';
import { DynamoSetAsideEvents, replaySetAside } from '../../shared/register/stream/set-aside';
import { isStreamName, STREAM_NAMES, type StreamName } from '../../shared/register/stream/stream-events';
import type { CliContext } from '../context';
import { formatTable } from '../format';
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
    .description('the Companies House stream consumers: events set aside as unappliable')
    .addHelpText(
      'after',
      `
Examples:
  $ bureau streams set-aside
  $ bureau streams set-aside --stream companies --json
  $ bureau streams set-aside --replay`,
    );

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
        const apply = createEventApplier({ doc: target.doc, companiesTable: target.tables.companies });
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

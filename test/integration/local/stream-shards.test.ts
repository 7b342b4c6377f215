import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStreamPoller, type StreamPoller } from '../../../local/stream-poller';

/**
 * DynamoDB Local cannot be made to split a shard on demand, so shard lineage is played by a fake
 * Streams client: a closed parent shard and the child that continues it.
 */
const record = (sequenceNumber: string, pk: string): _Record => ({
  eventID: `event-${sequenceNumber}`,
  eventName: 'INSERT',
  dynamodb: { SequenceNumber: sequenceNumber, Keys: { pk: { S: pk } }, StreamViewType: 'NEW_AND_OLD_IMAGES' },
});

function fakeStreams(calls: string[]) {
  const pages: Record<string, { records: _Record[]; closed: boolean }> = {
    parent: { records: [record('1', 'GB#1'), record('2', 'GB#1')], closed: true },
    child: { records: [record('3', 'GB#1')], closed: false },
  };
  return {
    send: async (command: unknown) => {
      if (command instanceof DescribeStreamCommand) {
        // The child is listed first: order must come from the lineage, not the listing.
        return { StreamDescription: { Shards: [{ ShardId: 'child', ParentShardId: 'parent' }, { ShardId: 'parent' }] } };
      }
      if (command instanceof GetShardIteratorCommand) {
        return { ShardIterator: `${command.input.ShardId}@0` };
      }
      if (command instanceof GetRecordsCommand) {
        const [shardId = '', position = '0'] = (command.input.ShardIterator ?? '').split('@');
        calls.push(`${shardId}@${position}`);
        const page = pages[shardId] as { records: _Record[]; closed: boolean };
        const start = Number(position);
        const records = page.records.slice(start);
        const end = start + records.length;
        return { Records: records, NextShardIterator: page.closed && records.length === 0 ? undefined : `${shardId}@${end}` };
      }
      throw new Error(`unexpected command ${String(command)}`);
    },
  } as unknown as DynamoDBStreamsClient;
}

const running: StreamPoller[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((poller) => poller.stop()));
});

describe('stream shard lineage', () => {
  it('reads a child shard only after its parent is finished, so records of one key stay in order', async () => {
    const calls: string[] = [];
    const delivered: string[] = [];
    const poller = createStreamPoller({
      streams: fakeStreams(calls),
      streamArn: 'arn:aws:dynamodb:eu-west-2:000000000000:table/t/stream/1',
      invoke: async (event) => {
        delivered.push(...event.Records.map((r) => r.dynamodb?.SequenceNumber as string));
      },
      checkpointFile: join(mkdtempSync(join(tmpdir(), 'bureau-shards-')), 'checkpoint.json'),
      sendFailure: async () => {
        throw new Error('no batch fails here');
      },
      pollIntervalMs: 10,
    });
    running.push(poller);

    poller.start();

    await vi.waitFor(() => expect(delivered).toEqual(['1', '2', '3']));
    const firstChildRead = calls.findIndex((call) => call.startsWith('child'));
    const parentClosedAt = calls.lastIndexOf('parent@2');
    expect(firstChildRead).toBeGreaterThan(parentClosedAt);
  });
});

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../shared/auth/rate-limit';
import type { Principal } from '../../../shared/auth/tokens';
import { DynamoClientEventStore } from '../../../shared/events/dynamo-client-events';
import { eventsRoute } from '../../../shared/events/events-endpoint';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { clientsTable, eventsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { activeClient, clientLookup } from '../../support/fakes';
import { httpRequest } from '../../support/http-fixtures';

let tables: TestTables;
/** The requests the events store sent to DynamoDB Local, by command, and the capacity they consumed. */
const sent: Array<{ command: string; table: unknown; consumed: number }> = [];

/** A document client of its own for the events store, whose every request is written down as DynamoDB Local answers it. */
function countingClient(env: NodeJS.ProcessEnv): DynamoDBDocumentClient {
  const doc = createDocumentClient(createDynamoClient(env));
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: unknown; ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const output = result.output as { ConsumedCapacity?: { CapacityUnits?: number } };
      sent.push({ command: context.commandName ?? '?', table: input.TableName, consumed: output.ConsumedCapacity?.CapacityUnits ?? 0 });
      return result;
    },
    { step: 'initialize', name: 'countEventReads' },
  );
  return doc;
}

beforeAll(async () => {
  tables = await createTestTables([clientsTable, eventsTable]);
  const store = new DynamoClientEventStore(tables.doc, tables.names.events as string);
  const occurredAt = new Date(Date.now() - 60_000).toISOString();
  for (let n = 0; n < 50; n++) {
    await store.recordFor(['cli_limited'], {
      type: 'profile.changed',
      apiVersion: 'v1',
      occurredAt,
      idempotencyKey: `profile.changed:GB:01234567:overview:v${n}`,
      block: 'overview',
      data: { jurisdiction: 'GB', companyNumber: '01234567' },
    });
  }
});

describe('GET /v1/events over its rate limit', () => {
  it('reads nothing from the events table for a refused call', async () => {
    const route = eventsRoute(
      {
        verifier: { verify: async (token: string): Promise<Principal> => ({ clientId: token, tokenId: 't', expiresAt: 2_000_000_000 }) },
        limiter: new RateLimiter(tables.doc, tables.names.clients as string),
        clients: clientLookup(activeClient('cli_limited')),
        defaultRateLimitPerMinute: 1,
      },
      { events: new DynamoClientEventStore(countingClient(tables.env), tables.names.events as string), clock: () => new Date() },
    );
    const get = () => route(httpRequest({ path: '/v1/events', query: 'limit=100', headers: { authorization: 'Bearer cli_limited' } }));

    const admitted = await get();
    const readsWhenAdmitted = sent.length;
    const refused = await Promise.all([get(), get(), get()]);

    expect(admitted.status).toBe(200);
    expect(readsWhenAdmitted).toBeGreaterThan(0);
    expect(sent.every((request) => request.table === tables.names.events && request.consumed > 0)).toBe(true);
    expect(refused.map((response) => response.status)).toEqual([429, 429, 429]);
    expect(sent.slice(readsWhenAdmitted)).toEqual([]);
  });
});

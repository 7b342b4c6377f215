import { protectedRoute } from '../../shared/auth/protect';
import { DynamoClientEventStore } from '../../shared/events/dynamo-client-events';
import { createEventsEndpoint } from '../../shared/events/events-endpoint';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { eventsTable, tableName } from '../../shared/storage/tables';
import { protection } from '../protection';

/** GET /v1/events: the caller's events, from the events table; read-only, so it runs alongside the rate counter. */
const doc = sharedDocumentClient();
const events = new DynamoClientEventStore(doc, tableName(eventsTable));

export const handler = lambdaHttpHandler(
  protectedRoute(protection(doc), createEventsEndpoint({ events, clock: () => new Date() }), { startBeforeLimit: true }),
);

import { DynamoClientEventStore } from '../../shared/events/dynamo-client-events';
import { eventsRoute } from '../../shared/events/events-endpoint';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { eventsTable, tableName } from '../../shared/storage/tables';
import { protection } from '../protection';

/** GET /v1/events: the caller's events, from the events table, read only once the call is within its rate limit. */
const doc = sharedDocumentClient();
const events = new DynamoClientEventStore(doc, tableName(eventsTable));

export const handler = lambdaHttpHandler(eventsRoute(protection(doc), { events, clock: () => new Date() }));

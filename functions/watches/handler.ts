import { protectedRoute } from '../../shared/auth/protect';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { tableName, watchesTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { createWatchesEndpoint } from '../../shared/watches/watches-endpoint';
import { protection } from '../protection';

/** GET /v1/watches: the caller's watches, from the watches table's by-client index; read-only, so it runs alongside the rate counter. */
const doc = sharedDocumentClient();
const watches = new DynamoWatchStore(doc, tableName(watchesTable));

export const handler = lambdaHttpHandler(protectedRoute(protection(doc), createWatchesEndpoint({ watches }), { startBeforeLimit: true }));

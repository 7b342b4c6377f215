import { protectedRoute } from '../../shared/auth/protect';
import { DynamoNameIndex } from '../../shared/companies/dynamo-name-index';
import { createSearchEndpoint } from '../../shared/companies/search-endpoint';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { companiesTable, tableName } from '../../shared/storage/tables';
import { protection } from '../protection';

/** GET /v1/search: the name index in the companies table, behind bearer protection; it only reads, so it runs alongside the rate counter. */
const doc = sharedDocumentClient();
const index = new DynamoNameIndex(doc, tableName(companiesTable));

export const handler = lambdaHttpHandler(protectedRoute(protection(doc), createSearchEndpoint({ index }), { startBeforeLimit: true }));

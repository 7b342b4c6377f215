import { DynamoCompanyStore } from '../../infra/operations/companies/dynamo-company-store';
import { type BatchResult, importChunk } from '../../infra/operations/register-import/import-chunk';
import type { ManifestItem } from '../../infra/operations/register-import/split-upload';
import { observed } from '../../shared/observability/middleware';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { companiesTable, tableName } from '../../shared/storage/tables';
import { uploadsBucket } from './objects';

/** One item of the Distributed Map: a chunk imported into the companies table. */
const objects = uploadsBucket();
const store = new DynamoCompanyStore(sharedDocumentClient(), tableName(companiesTable));

export const handler = observed<{ chunk: ManifestItem; asOf: string }, BatchResult>((event) => importChunk(objects, store, event));

import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { observed } from '../../shared/observability/middleware';
import { type BatchResult, importChunk } from '../../shared/register/import/import-chunk';
import { importDocumentClient } from '../../shared/register/import/import-client';
import type { ManifestItem } from '../../shared/register/import/split-upload';
import { companiesTable, tableName } from '../../shared/storage/tables';
import { uploadsBucket } from '../uploads-bucket';

/** One item of the Distributed Map: a chunk imported into the companies table. */
const objects = uploadsBucket();
const store = new DynamoCompanyStore(importDocumentClient(), tableName(companiesTable));

export const handler = observed<{ chunk: ManifestItem; asOf: string }, BatchResult>((event) => importChunk(objects, store, event));

import { type AccountsItemInput, type AccountsItemResult, importAccountsItem } from '../../shared/accounts/import/accounts-item';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { observed } from '../../shared/observability/middleware';
import { importDocumentClient } from '../../shared/register/import/import-client';
import { companiesTable, tableName } from '../../shared/storage/tables';
import { uploadsBucket } from '../uploads-bucket';

/** One item of the Distributed Map: a window of the archive's entries read from S3, their figures stored in the profiles. */
const objects = uploadsBucket();
const store = new DynamoCompanyStore(importDocumentClient(), tableName(companiesTable));

export const handler = observed<AccountsItemInput, AccountsItemResult>((event) => importAccountsItem(objects, store, event));

import { protectedRoute } from '../../shared/auth/protect';
import { DynamoProfileReader } from '../../shared/companies/dynamo-profile-reader';
import { createProfileEndpoint } from '../../shared/companies/profile-endpoint';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { companiesTable, tableName, watchesTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { protection } from '../protection';

/** GET /v1/profile/{companyNumber}: the profile from the companies table; the fetch recorded as a watch, alongside the rate counter (undone if refused). */
const doc = sharedDocumentClient();
const companies = new DynamoProfileReader(doc, tableName(companiesTable));
const watches = new DynamoWatchStore(doc, tableName(watchesTable));

export const handler = lambdaHttpHandler(
  protectedRoute(protection(doc), createProfileEndpoint({ companies, watches, clock: () => new Date() }), { startBeforeLimit: true }),
);

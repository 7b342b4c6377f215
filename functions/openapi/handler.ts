import { lambdaHttpHandler } from '../../shared/http/lambda';
import { openApiDocument } from '../../shared/openapi/document';
import { createDocumentEndpoint } from '../../shared/openapi/document-endpoint';

/** GET /v1/openapi.json: public, and touches nothing but its own code. */
export const handler = lambdaHttpHandler(createDocumentEndpoint(openApiDocument));

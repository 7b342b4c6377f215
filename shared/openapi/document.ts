import { componentHeaders, componentParameters, componentResponses, paths } from './paths';
import { componentSchemas } from './schemas';
import { webhooks } from './webhooks';

/** Bumped with every change to the document; the API's own version stays v1 while changes are additive. */
export const DOCUMENT_VERSION = '1.0.0';

const description = `Company data for Great Britain and Ireland: search companies by name or number, fetch a company's profile (identity, overview, trading status, filing behaviour, risk of failure, credit capacity and early signals, each with its provenance), and receive signed webhooks when a profile you fetched changes.

Authenticate with OAuth 2.0 client credentials at \`POST /v1/oauth/token\` and send the token as \`Authorization: Bearer <token>\`. Errors are RFC 9457 problem documents with a stable \`error\` code. Every response carries \`apigw-requestid\`: quote it to support.

Within v1, changes are additive only: new endpoints, optional parameters, response fields, \`error\` codes, \`match.type\` values and early-signal kinds. Ignore fields you do not know.`;

/**
 * The API's OpenAPI 3.1 document, built from the code's own schemas and limits (the profile's JSON
 * Schema, the filters' values, page and body limits). Every end-to-end exchange is validated against
 * it (test/support/contract.ts), so it cannot drift from what the API answers.
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Bureau API',
      version: DOCUMENT_VERSION,
      summary: 'Company data for Great Britain and Ireland, with webhooks.',
      description,
      contact: { name: 'Bureau support', email: 'support@bureau.example', url: 'https://docs.bureau.example' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Bureau' },
    },
    servers: [
      { url: 'https://api.bureau.example', description: 'Production' },
      { url: 'http://127.0.0.1:3000', description: 'The local runtime (`npm start`)' },
    ],
    security: [{ bearer: [] }, { oauth2: [] }],
    tags: [
      { name: 'Authentication', description: 'Client credentials for a bearer token.' },
      { name: 'Companies', description: 'Search, profiles and the companies a client watches.' },
      { name: 'Events', description: 'Every event of the watched companies, to poll or to catch up.' },
      { name: 'Webhooks', description: 'Subscriptions, their deliveries, and the events delivered.' },
      { name: 'Reference', description: 'This document.' },
    ],
    paths: paths(),
    webhooks: webhooks(),
    components: {
      schemas: componentSchemas(),
      parameters: componentParameters(),
      headers: componentHeaders(),
      responses: componentResponses(),
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token from POST /v1/oauth/token.',
        },
        oauth2: {
          type: 'oauth2',
          description: 'OAuth 2.0 client credentials; the token is then sent as a bearer token.',
          flows: { clientCredentials: { tokenUrl: '/v1/oauth/token', scopes: {} } },
        },
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description: 'At the token endpoint only: client id and secret, each form-urlencoded, in HTTP Basic (RFC 6749 §2.3.1).',
        },
      },
    },
  };
}

/** The document, built once per process: it depends on nothing but the code. */
export const openApiDocument = buildOpenApiDocument();

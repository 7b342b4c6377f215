import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { openApiDocument } from '../shared/openapi/document';

/**
 * npm run sdk:types: writes the SDK's types (packages/client/src/generated/api-types.ts) from the
 * OpenAPI document's components, so the client's types are the API's own schemas and cannot drift
 * from them. A unit test regenerates them in memory and fails when the committed file is stale.
 */
export const SDK_TYPES_PATH = join(dirname(fileURLToPath(import.meta.url)), '../packages/client/src/generated/api-types.ts');

const BANNER = `/**
 * The Bureau API's request and response bodies, generated from its OpenAPI document's
 * components.schemas by tools/write-sdk-types.ts (npm run sdk:types). Do not edit by hand.
 */`;

/** OpenAPI 3.1 keywords json-schema-to-typescript does not know, which would otherwise leak into comments or types. */
const OPENAPI_ONLY = new Set(['example', 'examples', 'discriminator', 'xml', 'externalDocs']);

/**
 * A reference's own description (a property's note beside its `$ref`) makes json-schema-to-typescript
 * declare a numbered copy of the referenced type for each use (Provenance1, Provenance2, …); the
 * reference alone names the one type.
 */
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'default', 'deprecated', 'readOnly', 'writeOnly']);

function cleaned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cleaned);
  if (value === null || typeof value !== 'object') return value;
  if ('$ref' in value && Object.keys(value).every((key) => key === '$ref' || ANNOTATIONS.has(key))) return { $ref: value.$ref };
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !OPENAPI_ONLY.has(key))
      .map(([key, inner]) => [key, key === 'properties' || key === '$defs' ? cleanedMap(inner) : cleaned(inner)]),
  );
}

/** A map of names to schemas: its keys are names, never keywords, so none is dropped. */
function cleanedMap(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cleaned(inner)]));
}

export async function renderSdkTypes(document: unknown = openApiDocument): Promise<string> {
  const schemas = (document as { components?: { schemas?: Record<string, Record<string, unknown>> } }).components?.schemas;
  if (!schemas || Object.keys(schemas).length === 0) throw new Error('The OpenAPI document has no components.schemas');
  const names = Object.keys(schemas).sort();
  // Each component titled with its own name, so it becomes one exported type of that name that the others refer to.
  const titled = Object.fromEntries(names.map((name) => [name, { ...(cleaned(schemas[name]) as object), title: name }]));
  const root = {
    title: 'ApiSchemas',
    description: 'Every schema of the API by its component name.',
    type: 'object',
    additionalProperties: false,
    required: names,
    properties: Object.fromEntries(names.map((name) => [name, { $ref: `#/components/schemas/${name}` }])),
    components: { schemas: titled },
  };
  return compile(root as JSONSchema, 'ApiSchemas', {
    bannerComment: BANNER,
    // The API adds response fields within v1; the types list the ones known, and a caller ignores the rest.
    additionalProperties: false,
    unknownAny: true,
    strictIndexSignatures: true,
    declareExternallyReferenced: true,
    enableConstEnums: false,
    // Bounds on a list are the API's to check; as tuples they would make the types unreadable.
    ignoreMinAndMaxItems: true,
    $refOptions: { resolve: { external: false } } as never,
    style: { singleQuote: true, printWidth: 140, trailingComma: 'all', semi: true, tabWidth: 2, useTabs: false },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  renderSdkTypes().then(
    (text) => {
      writeFileSync(SDK_TYPES_PATH, text);
      process.stdout.write(`Wrote ${SDK_TYPES_PATH}\n`);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

import { describe, expect, it } from 'vitest';
import { functions } from '../../../infra/catalogue';
import profileSchema from '../../../shared/companies/schema/profile.v1.schema.json' with { type: 'json' };
import { openApiDocument } from '../../../shared/openapi/document';
import { lintOpenApiDocument } from '../../../tools/openapi';
import { ApiContract } from '../../support/contract';

type Json = Record<string, unknown>;
const document = openApiDocument as Json & { paths: Record<string, Record<string, Json>>; components: Json };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every media type object with an example, and the JSON Pointer of its schema. */
function examplesOf(value: unknown, pointer = '#'): Array<{ at: string; example: unknown; schemaPointer: string }> {
  if (value === null || typeof value !== 'object') return [];
  const found: Array<{ at: string; example: unknown; schemaPointer: string }> = [];
  const object = value as Json;
  if ('example' in object && 'schema' in object) found.push({ at: pointer, example: object.example, schemaPointer: `${pointer}/schema` });
  for (const [key, inner] of Object.entries(object)) {
    if (key === 'example' || key === 'schema') continue;
    found.push(...examplesOf(inner, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`));
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('documents every public route of the catalogue, and no route the API does not serve', () => {
    const served = functions
      .flatMap((spec) => spec.routes)
      .filter((route) => route.access !== 'workspace-session')
      .map((route) => `${route.method} ${route.path}`)
      .sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, item]) => METHODS.filter((method) => method in item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();

    expect(documented).toEqual(served);
  });

  it('gives every operation an id, a summary, a 2xx answer, a 4xx answer and a 500', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS.filter((name) => name in item)) {
        const operation = item[method] as Json & { responses: Json };
        const statuses = Object.keys(operation.responses);
        expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
        expect(operation.summary, `${method} ${path}`).toBeTruthy();
        expect(
          statuses.some((status) => status.startsWith('2')),
          `${method} ${path}`,
        ).toBe(true);
        expect(
          statuses.some((status) => status.startsWith('4')),
          `${method} ${path}`,
        ).toBe(true);
        expect(statuses, `${method} ${path}`).toContain('500');
      }
    }
  });

  it('describes the profile with the very schema the import validates profiles with', () => {
    const { $schema: _dialect, $id: _id, $defs: _defs, ...profile } = profileSchema as Json;
    const component = (document.components.schemas as Json).Profile as Json;

    expect(Object.keys(component).sort()).toEqual(Object.keys(profile).sort());
    expect(component.required).toEqual(profile.required);
    expect(JSON.stringify(component)).not.toContain('$defs');
  });

  it('has examples that its own schemas accept, webhooks included', () => {
    const contract = new ApiContract();
    const examples = examplesOf({ paths: document.paths, webhooks: document.webhooks, components: document.components });

    expect(examples.length).toBeGreaterThan(15);
    for (const { at, example, schemaPointer } of examples) {
      expect(contract.breach(schemaPointer, example), at).toBeUndefined();
    }
  });

  it('names the three event types, the test event and the signature headers in its webhooks', () => {
    const webhooks = document.webhooks as Record<string, { post: { parameters: Array<{ name: string }> } }>;

    expect(Object.keys(webhooks).sort()).toEqual([
      'profile.changed',
      'profile.early_signal.detected',
      'profile.early_signal.updated',
      'webhook.test',
    ]);
    for (const webhook of Object.values(webhooks)) {
      expect(webhook.post.parameters.map((header) => header.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
        'x-bureau-signature',
      ]);
    }
  });

  it("lints clean under Redocly's recommended rules: no error, no warning", { timeout: 60_000 }, () => {
    const { ok, output } = lintOpenApiDocument();

    expect(ok, output).toBe(true);
  });

  it('fails the lint for a document that breaks a recommended rule', { timeout: 60_000 }, () => {
    const broken = structuredClone(openApiDocument) as typeof document;
    delete (broken.paths['/v1/search'] as Json).get;

    const { ok } = lintOpenApiDocument({ ...broken, paths: { ...broken.paths, '/v1/search': { get: { responses: {} } } } });

    expect(ok).toBe(false);
  });
});

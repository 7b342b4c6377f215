import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { profileContent } from '../support/profile-fixture';
import { useTestRuntime } from '../support/runtime';

/** The three routes through the local runtime: HTTP → API Gateway event → Lambda handler → DynamoDB. */
const bureau = useTestRuntime();
let token: string;

beforeAll(async () => {
  const { runtime } = bureau();
  const store = new DynamoCompanyStore(
    createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint })),
    runtime.env.COMPANIES_TABLE as string,
  );
  await store.save(profileContent({ companyNumber: '18000001', name: 'Zyxwv Quokka Traders Ltd' }));
  token = await bureau().fetchToken();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${bureau().baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

describe('search, profile and watches over HTTP', () => {
  it('forgives a typo in one word, says what it corrected, and suggests the query as it should have been', async () => {
    const response = await get('/v1/search?q=zyxwv%20qoukka%20traders&jurisdiction=GB');

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      items: [
        expect.objectContaining({
          companyNumber: '18000001',
          match: { type: 'fuzzy', on: ['zyxwv', 'quokka', 'traders'], corrected: [{ from: 'qoukka', to: 'quokka' }] },
        }),
      ],
      nextCursor: null,
      suggestion: 'zyxwv quokka traders',
    });
  });

  it('searches by name', async () => {
    const response = await get('/v1/search?q=zyxwv%20quok&jurisdiction=gb');

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      items: [expect.objectContaining({ companyNumber: '18000001', name: 'Zyxwv Quokka Traders Ltd', match: { type: 'name_prefix' } })],
      nextCursor: null,
    });
  });

  it('answers a bad search parameter with a problem document', async () => {
    const response = await get('/v1/search?q=zyxwv&jurisdiction=GB&limit=1000');

    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ error: 'invalid_limit', parameter: 'limit' });
  });

  it('serves the profile with an ETag, then 304 for it, and lists the watch', async () => {
    const first = await get('/v1/profile/18000001');
    const etag = first.headers.get('etag') as string;
    const again = await get('/v1/profile/18000001?jurisdiction=GB', { 'if-none-match': etag });
    const watches = await get('/v1/watches?limit=100');

    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ jurisdiction: 'GB', companyNumber: '18000001', version: 1 });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(((await watches.json()) as { items: { companyNumber: string }[] }).items.map((watch) => watch.companyNumber)).toContain(
      '18000001',
    );
  });

  it('answers 404 for an unknown company and 400 for a malformed number', async () => {
    const unknown = await get('/v1/profile/18999999');
    const malformed = await get('/v1/profile/not-a-number?jurisdiction=GB');

    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'company_not_found' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'invalid_company_number' });
  });
});

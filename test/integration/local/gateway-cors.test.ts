import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFunction } from '../../../local/functions';
import { type RunningHttpServer, startHttpServer } from '../../../local/http-server';
import { workspaceSite } from '../../../local/static-site';
import { API_CORS } from '../../../shared/http/cors';

/**
 * The local gateway plays the HTTP API's CORS configuration (shared/http/cors.ts) as API Gateway
 * does: API-wide, answering preflights itself, for any origin and never with credentials.
 */
const api = new LocalFunction({ functionName: 'bureau-cors', entry: join(import.meta.dirname, 'fixtures/cors-handler.ts') });
const PAGE = 'null'; // what a sandboxed page, in an opaque origin, sends as its Origin
let server: RunningHttpServer;
let site: string;

beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), 'bureau-cors-site-'));
  mkdirSync(join(site, 'reference'));
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>workspace</title>');
  writeFileSync(join(site, 'reference', 'index.html'), '<!doctype html><title>reference</title>');
  server = await startHttpServer({
    port: 0,
    staticSite: workspaceSite(site),
    routes: [
      { method: 'GET', path: '/v1/profile/{companyNumber}', target: api },
      { method: 'GET', path: '/workspace/api/session', target: api },
    ],
  });
});

afterAll(async () => {
  await server?.stop();
  rmSync(site, { recursive: true, force: true });
});

const preflight = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin: PAGE, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization', ...headers },
  });

const corsHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

describe('the local gateway answers CORS as the HTTP API is configured to', () => {
  it('answers a preflight itself, with no route for OPTIONS, allowing any origin the methods and headers the API reads', async () => {
    const response = await preflight('/v1/profile/15380840?jurisdiction=GB');

    expect(response.status).toBe(204);
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET,HEAD,POST,PATCH,DELETE',
      'access-control-allow-headers': 'authorization,content-type,if-none-match',
      'access-control-max-age': String(API_CORS.maxAgeSeconds),
    });
    expect(await response.text()).toBe('');
  });

  it('lets any page read an answer and the headers a client needs, never with credentials, whatever the function sent', async () => {
    const response = await fetch(`${server.url}/v1/profile/15380840?jurisdiction=GB`, {
      headers: { origin: PAGE, authorization: 'Bearer x' },
    });

    expect(response.status).toBe(200);
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'ratelimit,ratelimit-policy,retry-after,www-authenticate,etag,location,apigw-requestid',
    });
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('etag')).toBe('"v7"');
  });

  it('adds nothing to a request that names no origin, as the gateway does', async () => {
    const response = await fetch(`${server.url}/v1/profile/15380840?jurisdiction=GB`);

    expect(response.status).toBe(200);
    expect(corsHeaders(response)).toEqual({});
  });

  it("treats the workspace's API as the HTTP API treats every route: any origin, never credentials, so no cookie-earned answer is readable", async () => {
    const asked = await preflight('/workspace/api/session');
    const answered = await fetch(`${server.url}/workspace/api/session`, { headers: { origin: PAGE, cookie: 'session=x' } });

    expect(asked.status).toBe(204);
    expect(asked.headers.get('access-control-allow-credentials')).toBeNull();
    expect(answered.headers.get('access-control-allow-origin')).toBe('*');
    expect(answered.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers CORS for no file of the site, which CloudFront serves from S3', async () => {
    const page = await fetch(`${server.url}/workspace/reference/`, { headers: { origin: PAGE } });
    const asked = await preflight('/workspace/reference/');

    expect(page.status).toBe(200);
    expect(corsHeaders(page)).toEqual({});
    expect(asked.status).toBe(404);
    expect(corsHeaders(asked)).toEqual({});
  });

  it('still sends a plain OPTIONS request, one that is no preflight, to the routes, where none matches', async () => {
    const response = await fetch(`${server.url}/v1/profile/15380840`, { method: 'OPTIONS' });

    expect(response.status).toBe(404);
  });
});

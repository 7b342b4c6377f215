import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { downloadRegister, httpsGet, type ImportStarter, RegisterDownloadError } from '../../../shared/register/import/register-download';
import { splitUpload } from '../../../shared/register/import/split-upload';
import { type LocalBucket, startLocalBucket } from '../../support/s3';

const croFile = readFileSync(new URL('../../fixtures/register/cro-companies-2024-06-01.csv', import.meta.url));
const scheduledAt = new Date('2026-11-23T06:30:00Z');

let bucket: LocalBucket;
let tls: { key: string; cert: string };
let portal: HttpsServer;
let portalUrl: string;
let plain: Server;
let plainUrl: string;
/** What the portal answers, per path; set by each test. */
let routes: Record<string, (res: ServerResponse) => void>;

const listen = async (server: Server | HttpsServer) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bureau-portal-tls-'));
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    ],
    { stdio: 'ignore' },
  );
  tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  rmSync(dir, { recursive: true, force: true });
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else res.writeHead(404).end();
  };
  portal = createServer(tls, serve);
  portalUrl = `https://127.0.0.1:${await listen(portal)}`;
  plain = createHttpServer(serve);
  plainUrl = `http://127.0.0.1:${await listen(plain)}`;
  bucket = await startLocalBucket();
});

afterAll(async () => {
  await bucket?.stop();
  await new Promise((resolve) => portal?.close(resolve));
  await new Promise((resolve) => plain?.close(resolve));
});

let started: Array<{ name: string; input: { key: string; asOf: string } }>;
const starter: ImportStarter = {
  start: async (name, input) => {
    started.push({ name, input });
    return `arn:aws:states:eu-west-2:123456789012:execution:RegisterImport:${name}`;
  },
};

beforeEach(() => {
  started = [];
  routes = {
    '/companies.csv': (res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(croFile),
  };
});

/** The download as the function runs it, trusting the test portal's own certificate. */
const download = (url: string, at = scheduledAt) =>
  downloadRegister({
    url,
    fileStem: 'cro-companies',
    format: 'cro-companies',
    at,
    s3: bucket.objects.s3,
    bucket: bucket.objects.bucket,
    starter,
    get: (target) => httpsGet(target, { ca: tls.cert }),
  });

const bodyOf = async (key: string) => {
  const chunks: Buffer[] = [];
  for await (const chunk of await bucket.objects.stream(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

describe('the scheduled CRO download', () => {
  it('streams the file to the uploads bucket under a dated name and starts the import on it, which splits it', async () => {
    const result = await download(`${portalUrl}/companies.csv`);

    expect(result).toMatchObject({ key: 'uploads/20261123T063000Z-scheduled/cro-companies-2026-11-23.csv', asOf: '2026-11-23' });
    expect(result.bytes).toBe(croFile.length);
    expect((await bodyOf(result.key)).equals(croFile)).toBe(true);
    expect(started).toEqual([{ name: '20261123T063000Z-scheduled', input: { key: result.key, asOf: '2026-11-23' } }]);
    // The state machine's first step reads it as the CRO file, whole.
    const split = await splitUpload(bucket.objects, result.key);
    expect(split).toMatchObject({ jurisdiction: 'IE', wholeSnapshot: true });
  });

  it('names the same upload and execution when one scheduled event is delivered twice', async () => {
    const first = await download(`${portalUrl}/companies.csv`);
    const again = await download(`${portalUrl}/companies.csv`);

    expect(again.key).toBe(first.key);
    expect(started.map((start) => start.name)).toEqual([started[0]?.name, started[0]?.name]);
  });

  it('follows redirects that stay on https', async () => {
    routes['/latest'] = (res) => res.writeHead(302, { location: '/companies.csv' }).end();

    const result = await download(`${portalUrl}/latest`, new Date('2026-11-30T06:30:00Z'));

    expect((await bodyOf(result.key)).equals(croFile)).toBe(true);
  });

  it('refuses a plain-http URL, and a redirect to one, before anything is read or uploaded', async () => {
    routes['/to-plain'] = (res) => res.writeHead(301, { location: `${plainUrl}/companies.csv` }).end();
    const before = await bucket.keys();

    await expect(download(`${plainUrl}/companies.csv`)).rejects.toThrow('register files are fetched over https only');
    await expect(download(`${portalUrl}/to-plain`)).rejects.toThrow(RegisterDownloadError);
    expect(await bucket.keys()).toEqual(before);
    expect(started).toEqual([]);
  });

  it('refuses an error page served as 200, and a status other than 200, naming what it got; nothing is imported', async () => {
    routes['/maintenance'] = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Down for maintenance</p>');
    routes['/busy'] = (res) => res.writeHead(503).end();
    const before = await bucket.keys();

    await expect(download(`${portalUrl}/maintenance`)).rejects.toThrow(/matches no format/);
    await expect(download(`${portalUrl}/busy`)).rejects.toThrow(/answered 503/);
    expect(await bucket.keys()).toEqual(before);
    expect(started).toEqual([]);
  });

  it('refuses a file of another register than the one scheduled', async () => {
    const bulk = readFileSync(new URL('../../fixtures/register/BasicCompanyData-2024-06-01-part1_1.csv', import.meta.url));
    routes['/bulk.csv'] = (res) => res.writeHead(200).end(bulk);

    await expect(download(`${portalUrl}/bulk.csv`)).rejects.toThrow('holds a companies-house-bulk file, not the cro-companies file');
    expect(started).toEqual([]);
  });
});

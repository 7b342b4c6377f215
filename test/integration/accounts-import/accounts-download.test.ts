import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AccountsDownloadError,
  type AccountsImportStarter,
  type ArchiveGet,
  dailyArchivesFor,
  downloadAccounts,
  httpsArchiveGet,
} from '../../../shared/accounts/import/accounts-download';
import { dailyAccountsFile } from '../../support/filed-accounts';
import { type LocalBucket, startLocalBucket } from '../../support/s3';

const workDir = mkdtempSync(join(tmpdir(), 'bureau-accounts-download-'));
let bucket: LocalBucket;
let portal: Server;
let portalUrl: string;
let archive: Buffer;
/** What the portal serves, by path; set by each test. */
let published: Record<string, Buffer | string>;
let asked: string[];
let started: Map<string, { key: string }>;

const starter: AccountsImportStarter = {
  start: async (name, input) => {
    if (started.has(name)) return 'already-started';
    started.set(name, input);
    return 'started';
  },
};
// The portal under test speaks plain HTTP on loopback; the function's own GET refuses anything but https.
const get: ArchiveGet = async (url) => {
  const { statusCode, body } = await request(url);
  return { statusCode, body };
};

beforeAll(async () => {
  bucket = await startLocalBucket();
  archive = readFileSync(await dailyAccountsFile(workDir));
  portal = createServer((req: IncomingMessage, res: ServerResponse) => {
    asked.push(req.url ?? '');
    const body = published[req.url ?? ''];
    if (body === undefined) res.writeHead(404).end('Not Found');
    else res.writeHead(200).end(body);
  });
  await new Promise<void>((resolve) => portal.listen(0, '127.0.0.1', resolve));
  portalUrl = `http://127.0.0.1:${(portal.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await bucket?.stop();
  await new Promise((resolve) => portal?.close(resolve));
});

beforeEach(() => {
  published = {};
  asked = [];
  started = new Map();
});

const download = (archives: readonly string[]) =>
  downloadAccounts({ archives, baseUrl: portalUrl, s3: bucket.objects.s3, bucket: bucket.objects.bucket, starter, get });

describe('the daily accounts download', () => {
  it('looks back a week from the run, oldest day first', () => {
    expect(dailyArchivesFor(new Date('2026-11-30T07:30:00Z'))).toEqual([
      'Accounts_Bulk_Data-2026-11-24.zip',
      'Accounts_Bulk_Data-2026-11-25.zip',
      'Accounts_Bulk_Data-2026-11-26.zip',
      'Accounts_Bulk_Data-2026-11-27.zip',
      'Accounts_Bulk_Data-2026-11-28.zip',
      'Accounts_Bulk_Data-2026-11-29.zip',
      'Accounts_Bulk_Data-2026-11-30.zip',
    ]);
  });

  it('brings in the days published, starts an import on each, and calls the other days not published', async () => {
    // Arrange: Thursday's and Friday's archives are out; the weekend and Monday's are not.
    published = { '/Accounts_Bulk_Data-2026-11-26.zip': archive, '/Accounts_Bulk_Data-2026-11-27.zip': archive };

    // Act
    const outcomes = await download(dailyArchivesFor(new Date('2026-11-30T07:30:00Z')));

    // Assess
    expect(outcomes.filter((outcome) => outcome.outcome !== 'not-published')).toEqual([
      {
        archive: 'Accounts_Bulk_Data-2026-11-26.zip',
        outcome: 'loaded',
        key: 'accounts/Accounts_Bulk_Data-2026-11-26/Accounts_Bulk_Data-2026-11-26.zip',
        bytes: archive.length,
        execution: 'started',
      },
      {
        archive: 'Accounts_Bulk_Data-2026-11-27.zip',
        outcome: 'loaded',
        key: 'accounts/Accounts_Bulk_Data-2026-11-27/Accounts_Bulk_Data-2026-11-27.zip',
        bytes: archive.length,
        execution: 'started',
      },
    ]);
    expect(outcomes.filter((outcome) => outcome.outcome === 'not-published')).toHaveLength(5);
    expect([...started]).toEqual([
      ['Accounts_Bulk_Data-2026-11-26', { key: 'accounts/Accounts_Bulk_Data-2026-11-26/Accounts_Bulk_Data-2026-11-26.zip' }],
      ['Accounts_Bulk_Data-2026-11-27', { key: 'accounts/Accounts_Bulk_Data-2026-11-27/Accounts_Bulk_Data-2026-11-27.zip' }],
    ]);
    const stored = await bucket.objects.s3.send(
      new GetObjectCommand({
        Bucket: bucket.objects.bucket,
        Key: 'accounts/Accounts_Bulk_Data-2026-11-26/Accounts_Bulk_Data-2026-11-26.zip',
      }),
    );
    expect(Buffer.from((await stored.Body?.transformToByteArray()) ?? [])).toEqual(archive);
  });

  it('run again, fetches nothing it holds and starts no second import', async () => {
    published = { '/Accounts_Bulk_Data-2026-11-20.zip': archive };
    await download(['Accounts_Bulk_Data-2026-11-20.zip']);
    asked = [];

    const again = await download(['Accounts_Bulk_Data-2026-11-20.zip']);

    expect(again).toEqual([expect.objectContaining({ outcome: 'already-held', execution: 'already-started' })]);
    expect(asked).toEqual([]);
    expect(started.size).toBe(1);
  });

  it("fetches a month's archive from the archive folder once it has moved there", async () => {
    published = { '/archive/Accounts_Monthly_Data-October2025.zip': archive };

    const [outcome] = await download(['Accounts_Monthly_Data-October2025.zip']);

    expect(asked).toEqual(['/Accounts_Monthly_Data-October2025.zip', '/archive/Accounts_Monthly_Data-October2025.zip']);
    expect(outcome).toMatchObject({
      outcome: 'loaded',
      key: 'accounts/Accounts_Monthly_Data-October2025/Accounts_Monthly_Data-October2025.zip',
    });
  });

  it('refuses an error page served as an archive, and uploads nothing', async () => {
    published = { '/Accounts_Bulk_Data-2026-11-19.zip': '<html>Service unavailable</html>' };

    await expect(download(['Accounts_Bulk_Data-2026-11-19.zip'])).rejects.toThrow(AccountsDownloadError);
    expect(await bucket.keys('accounts/Accounts_Bulk_Data-2026-11-19/')).toEqual([]);
    expect(started.size).toBe(0);
  });

  it('refuses names that are not archives of the Accounts Data Product, and plain HTTP', async () => {
    await expect(download(['../BasicCompanyData-2026-11-01.zip'])).rejects.toThrow(/not an archive of the Accounts Data Product/);
    await expect(httpsArchiveGet(`${portalUrl}Accounts_Bulk_Data-2026-11-19.zip`)).rejects.toThrow(/https only/);
  });
});

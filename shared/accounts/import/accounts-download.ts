import { Readable } from 'node:stream';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { request } from 'undici';
import { streamHead } from '../../register/import/stream-head';
import { isZip } from '../../register/import/zip-entries';
import { archiveKeyOf, isAccountsArchiveName, parseArchiveKey } from './accounts-object-keys';

/** Where the archives are published; a variable only so a test can serve them. */
export const ACCOUNTS_DOWNLOAD_BASE_URL = 'https://download.companieshouse.gov.uk/';
export const ACCOUNTS_BASE_URL_VARIABLE = 'ACCOUNTS_DOWNLOAD_BASE_URL';
/** The accounts import's state machine, which a download starts on each archive it brings in. */
export const ACCOUNTS_STATE_MACHINE_VARIABLE = 'ACCOUNTS_IMPORT_STATE_MACHINE_ARN';

/**
 * Days looked back on each run, the run's own included: a day missed (an outage, a file published
 * after the run, a bank holiday's file on the next working day) is brought in by a later run, and
 * a day already in the bucket costs one HeadObject. Well inside the 35 days an archive is kept.
 */
export const LOOKBACK_DAYS = 7;

export class AccountsDownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountsDownloadError';
  }
}

/** Starts the accounts import on an archive; the name makes a second start of the same archive a no-op. */
export interface AccountsImportStarter {
  start(name: string, input: { key: string }): Promise<'started' | 'already-started'>;
}

/** A GET: its status and, on 200, the body. */
export type ArchiveGet = (url: string) => Promise<{ readonly statusCode: number; readonly body: Readable }>;

/** What happened to one archive. */
export type ArchiveOutcome =
  | { readonly archive: string; readonly outcome: 'not-published' }
  | {
      readonly archive: string;
      /** 'loaded': fetched now; 'already-held': in the bucket from an earlier run, not fetched again. */
      readonly outcome: 'loaded' | 'already-held';
      readonly key: string;
      readonly bytes?: number;
      readonly execution: 'started' | 'already-started';
    };

export interface AccountsDownload {
  /** Archives to bring in, by name: `dailyArchivesFor(at)` on schedule, or the one an operator names. */
  readonly archives: readonly string[];
  readonly baseUrl?: string;
  readonly s3: S3Client;
  readonly bucket: string;
  readonly starter: AccountsImportStarter;
  readonly get?: ArchiveGet;
}

/** The daily archives a run at `at` looks for, oldest first: its own day and the LOOKBACK_DAYS - 1 before. */
export function dailyArchivesFor(at: Date, days = LOOKBACK_DAYS): string[] {
  return Array.from({ length: days }, (_, back) => {
    const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - (days - 1 - back)));
    return `Accounts_Bulk_Data-${day.toISOString().slice(0, 10)}.zip`;
  });
}

/** No byte for this long, connecting or reading, aborts the transfer. */
const IDLE_TIMEOUT_MS = 60_000;

/** GET over https only, as undici answers it: a download is public data that decides figures, so never over plain HTTP. */
export const httpsArchiveGet: ArchiveGet = async (url) => {
  if (new URL(url).protocol !== 'https:') throw new AccountsDownloadError(`Refusing ${url}: archives are fetched over https only`);
  const { statusCode, body } = await request(url, {
    headers: { 'user-agent': 'Bureau accounts import' },
    headersTimeout: IDLE_TIMEOUT_MS,
    bodyTimeout: IDLE_TIMEOUT_MS,
  });
  return { statusCode, body };
};

/** Where an archive is published: a month's moves under archive/ once it is no longer among the latest. */
const urlsOf = (baseUrl: string, archive: string): string[] => {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return archive.startsWith('Accounts_Monthly_Data-') ? [`${base}${archive}`, `${base}archive/${archive}`] : [`${base}${archive}`];
};

/**
 * Listed rather than asked for by HeadObject: without s3:ListBucket a missing object answers 403, not
 * 404, and the function's list grant is held to the accounts prefix.
 */
async function isHeld(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, MaxKeys: 1 }));
  return (listed.Contents ?? []).some((object) => object.Key === key);
}

/** S3's smallest part, four held at a time: 20 MB of memory whatever the archive's size. */
const PART_BYTES = 5 * 1024 * 1024;

async function upload(s3: S3Client, bucket: string, key: string, body: Readable): Promise<number> {
  let bytes = 0;
  async function* counted(source: Readable): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      bytes += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  }
  await new Upload({
    client: s3,
    params: { Bucket: bucket, Key: key, Body: Readable.from(counted(body), { objectMode: false }), ContentType: 'application/zip' },
    partSize: PART_BYTES,
    queueSize: 4,
    // Aborting needs a grant the function does not hold; the bucket's lifecycle rule removes unfinished uploads after a day.
    leavePartsOnError: true,
  }).done();
  return bytes;
}

async function fetchArchive(options: AccountsDownload, archive: string, key: string): Promise<number | undefined> {
  const get = options.get ?? httpsArchiveGet;
  for (const url of urlsOf(options.baseUrl ?? ACCOUNTS_DOWNLOAD_BASE_URL, archive)) {
    const { statusCode, body } = await get(url);
    if (statusCode === 404) {
      body.resume();
      continue;
    }
    if (statusCode !== 200) {
      body.resume();
      throw new AccountsDownloadError(`${url} answered ${statusCode}`);
    }
    const { head, stream } = await streamHead(body, 4);
    // An error page served as 200 stops here, before it is taken for an archive.
    if (!isZip(head)) {
      body.destroy();
      throw new AccountsDownloadError(`${url} answered with something other than a zip archive`);
    }
    return upload(options.s3, options.bucket, key, stream);
  }
  return undefined;
}

/**
 * Brings archives of the Accounts Data Product into the uploads bucket and starts the accounts
 * import on each. Safe to run again: an archive already in the bucket is not fetched again, and
 * its import is started under the archive's name, which Step Functions refuses to start twice. A
 * day with no archive (a weekend, a bank holiday, a file not yet published) is "not published",
 * not a failure.
 */
export async function downloadAccounts(options: AccountsDownload): Promise<ArchiveOutcome[]> {
  const outcomes: ArchiveOutcome[] = [];
  for (const archive of options.archives) {
    if (!isAccountsArchiveName(archive)) throw new AccountsDownloadError(`${archive} is not an archive of the Accounts Data Product`);
    const key = archiveKeyOf(archive);
    const held = await isHeld(options.s3, options.bucket, key);
    const bytes = held ? undefined : await fetchArchive(options, archive, key);
    if (!held && bytes === undefined) {
      outcomes.push({ archive, outcome: 'not-published' });
      continue;
    }
    const execution = await options.starter.start(parseArchiveKey(key).importId, { key });
    outcomes.push({ archive, outcome: held ? 'already-held' : 'loaded', key, ...(bytes === undefined ? {} : { bytes }), execution });
  }
  return outcomes;
}

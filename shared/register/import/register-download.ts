import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { formatOfHead, UnsupportedImportFileError } from './import-sources';
import { newImportId, uploadKeyOf } from './object-keys';
import { streamHead } from './stream-head';
import { isZip } from './zip-entries';

/** Where the file is fetched from, in the download function's environment: a stage setting (infra/stages.json). */
export const DOWNLOAD_URL_VARIABLE = 'REGISTER_DOWNLOAD_URL';
/** The register import's state machine, which the download starts on the file. */
export const STATE_MACHINE_VARIABLE = 'REGISTER_IMPORT_STATE_MACHINE_ARN';

/** The register file could not be fetched, or is not what the schedule expects: nothing was imported. */
export class RegisterDownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegisterDownloadError';
  }
}

/** Starts the register import's state machine on an upload, as `bureau companies import --stack` does. */
export interface ImportStarter {
  start(name: string, input: { key: string; asOf: string }): Promise<string>;
}

export interface HttpsGetOptions {
  /** Trusted certificates beyond the system's (a test's own server). */
  readonly ca?: string;
  /** No byte for this long, connecting or reading, aborts the download. */
  readonly idleTimeoutMs?: number;
  readonly maxRedirects?: number;
}

/** The portal sends a file's first bytes within seconds; a minute of silence is a stalled transfer. */
const IDLE_TIMEOUT_MS = 60_000;
/** Open-data portals hand a download to blob storage: a redirect or two, never a chain. */
const MAX_REDIRECTS = 5;

function refuseUnlessHttps(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RegisterDownloadError(`${url} is not a URL`);
  }
  // A register file decides every IE profile: a plain-HTTP hop would let anyone on the path rewrite it.
  if (parsed.protocol !== 'https:')
    throw new RegisterDownloadError(`Refusing ${parsed.origin}: register files are fetched over https only`);
  return parsed;
}

/**
 * GET over https only: redirects are followed while they stay on https, any other status than 200
 * is an error naming it, and a transfer silent for a minute is aborted rather than left to the
 * function's timeout.
 */
export async function httpsGet(url: string, options: HttpsGetOptions = {}): Promise<IncomingMessage> {
  const idle = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  let target = refuseUnlessHttps(url);
  for (let redirects = 0; ; redirects++) {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(target, {
        method: 'GET',
        headers: { 'user-agent': 'Bureau register import' },
        ...(options.ca ? { ca: options.ca } : {}),
      });
      req.setTimeout(idle, () => req.destroy(new RegisterDownloadError(`${target.origin} sent nothing for ${idle / 1000} s`)));
      req.once('response', resolve);
      req.once('error', reject);
      req.end();
    });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.resume();
      if (redirects >= (options.maxRedirects ?? MAX_REDIRECTS))
        throw new RegisterDownloadError(`${url} redirects more than ${redirects} times`);
      target = refuseUnlessHttps(new URL(location, target).toString());
      continue;
    }
    if (status !== 200) {
      response.resume();
      throw new RegisterDownloadError(`${target.origin}${target.pathname} answered ${status}`);
    }
    // The socket's idle timer stays armed while the body streams.
    response.setTimeout(idle, () => response.destroy(new RegisterDownloadError(`${target.origin} stalled for ${idle / 1000} s mid-file`)));
    return response;
  }
}

export interface RegisterDownload {
  readonly url: string;
  /** The upload's name before its date, e.g. `cro-companies`: the import reads the snapshot date from the name too. */
  readonly fileStem: string;
  /** The register format the file must be in; checked on its first line before anything is uploaded. */
  readonly format: 'cro-companies' | 'companies-house-bulk';
  /** When the schedule fired: the import's id and snapshot date, the same for a repeated delivery of one event. */
  readonly at: Date;
  readonly s3: S3Client;
  readonly bucket: string;
  readonly starter: ImportStarter;
  readonly get?: (url: string) => Promise<IncomingMessage>;
}

export interface RegisterDownloadResult {
  readonly key: string;
  readonly asOf: string;
  readonly bytes: number;
  readonly executionArn: string;
}

/** S3's smallest part, and the one the upload holds four of at a time: 20 MB of memory whatever the file's size. */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * A scheduled re-import: the register file fetched over https, checked to be the format expected
 * (a portal's error page served as 200 stops here, not in the split), streamed to the uploads bucket
 * under `uploads/<import id>/<stem>-<date>.csv` without touching disk, and the import started on it.
 */
export async function downloadRegister(options: RegisterDownload): Promise<RegisterDownloadResult> {
  const asOf = options.at.toISOString().slice(0, 10);
  const response = await (options.get ?? httpsGet)(options.url);
  const { head, stream } = await streamHead(response, 64 * 1024);
  const zipped = isZip(head);
  if (!zipped) {
    let format: string;
    try {
      format = formatOfHead(head.toString('utf8'), options.url);
    } catch (error) {
      response.destroy();
      if (error instanceof UnsupportedImportFileError) throw new RegisterDownloadError(error.message);
      throw error;
    }
    if (format !== options.format) {
      response.destroy();
      throw new RegisterDownloadError(`${options.url} holds a ${format} file, not the ${options.format} file this schedule imports`);
    }
  }
  // The event's time, not a random suffix: a repeated delivery of one event names the same import and execution.
  const importId = newImportId(options.at, 'scheduled');
  const key = uploadKeyOf(importId, `${options.fileStem}-${asOf}.${zipped ? 'zip' : 'csv'}`);
  let bytes = 0;
  async function* counted(source: Readable): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      bytes += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  }
  const upload = new Upload({
    client: options.s3,
    params: {
      Bucket: options.bucket,
      Key: key,
      Body: Readable.from(counted(stream), { objectMode: false }),
      ContentType: zipped ? 'application/zip' : 'text/csv',
    },
    partSize: PART_BYTES,
    queueSize: 4,
    // Aborting needs a grant the function does not hold; the bucket's lifecycle rule removes unfinished uploads after a day.
    leavePartsOnError: true,
  });
  await upload.done();
  const executionArn = await options.starter.start(importId, { key, asOf });
  return { key, asOf, bytes, executionArn };
}

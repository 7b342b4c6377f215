import type { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { awsClient } from '../../aws/clients';

/**
 * An S3 client for the import's functions. Deployed, requests get a minute rather than the 2 s the
 * other clients get: a chunk is megabytes, not a DynamoDB item. An emulator (fauxqs) is addressed by
 * path, since `<bucket>.127.0.0.1` resolves nowhere.
 */
export function createS3Client(env: NodeJS.ProcessEnv = process.env): S3Client {
  return awsClient(
    (config) =>
      new S3Client({
        ...config,
        ...(config.endpoint ? { forcePathStyle: true } : {}),
        ...(config.requestHandler ? { requestHandler: { ...config.requestHandler, requestTimeout: 60_000 } } : {}),
      }),
    's3',
    env,
  );
}

/** One bucket, read and written as the import needs it. */
export class ImportObjects {
  constructor(
    readonly s3: S3Client,
    readonly bucket: string,
  ) {}

  async stream(key: string): Promise<Readable> {
    const { Body } = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    if (!Body) throw new Error(`s3://${this.bucket}/${key} has no body`);
    return Body as Readable;
  }

  async readJson<T>(key: string): Promise<T> {
    const { Body } = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    if (!Body) throw new Error(`s3://${this.bucket}/${key} has no body`);
    return JSON.parse(await Body.transformToString('utf8')) as T;
  }

  async put(key: string, body: string, contentType: string): Promise<void> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }));
  }

  putJson(key: string, value: unknown): Promise<void> {
    return this.put(key, JSON.stringify(value), 'application/json');
  }
}

import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startLocalSqs } from '../../local/fauxqs';
import { UPLOADS_BUCKET_VARIABLE } from '../../shared/register/import/object-keys';
import { createS3Client, ImportObjects } from '../../shared/register/import/s3-objects';

/** A bucket in fauxqs, which serves S3 beside SQS on the same port (path-style, in memory). */
export interface LocalBucket {
  readonly objects: ImportObjects;
  /** S3_ENDPOINT and the bucket's variable, as a function of the register import gets them. */
  readonly env: NodeJS.ProcessEnv;
  keys(prefix?: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startLocalBucket(): Promise<LocalBucket> {
  const server = await startLocalSqs();
  const bucket = `uploads-${randomUUID().slice(0, 8)}`;
  const env: NodeJS.ProcessEnv = { S3_ENDPOINT: server.endpoint, AWS_REGION: 'eu-west-2', [UPLOADS_BUCKET_VARIABLE]: bucket };
  const s3 = createS3Client(env);
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    objects: new ImportObjects(s3, bucket),
    env,
    keys: async (prefix) => {
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ...(prefix ? { Prefix: prefix } : {}) }));
      return (listed.Contents ?? []).map((object) => object.Key as string);
    },
    stop: async () => {
      s3.destroy();
      await server.stop();
    },
  };
}

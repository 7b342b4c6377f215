import { UPLOADS_BUCKET_VARIABLE } from '../shared/register/import/object-keys';
import { createS3Client, ImportObjects } from '../shared/register/import/s3-objects';

/** The uploads bucket the stack names in the function's environment. */
export function uploadsBucket(env: NodeJS.ProcessEnv = process.env): ImportObjects {
  const bucket = env[UPLOADS_BUCKET_VARIABLE];
  if (!bucket) throw new Error(`${UPLOADS_BUCKET_VARIABLE} is not set`);
  return new ImportObjects(createS3Client(env), bucket);
}

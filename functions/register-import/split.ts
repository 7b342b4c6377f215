import { observed } from '../../shared/observability/middleware';
import { type SplitOutcome, splitUpload } from '../../shared/register/import/split-upload';
import { uploadsBucket } from '../uploads-bucket';

/** Step one of a register import: the upload cut into chunks and the manifest the Distributed Map reads. */
const objects = uploadsBucket();

export const handler = observed<{ key: string; asOf?: string }, SplitOutcome>((event) =>
  splitUpload(objects, event.key, event.asOf ? { asOf: event.asOf } : {}),
);

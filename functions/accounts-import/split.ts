import { type AccountsSplitOutcome, splitAccountsArchive } from '../../shared/accounts/import/accounts-split';
import { observed } from '../../shared/observability/middleware';
import { uploadsBucket } from '../uploads-bucket';

/** Step one of an accounts import: the archive's central directory read by ranged GETs and cut into the Map's windows. */
const objects = uploadsBucket();

export const handler = observed<{ key: string }, AccountsSplitOutcome>((event) => splitAccountsArchive(objects, event.key));

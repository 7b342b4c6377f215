import { basename } from 'node:path';

/**
 * Where a register import keeps its objects in the uploads bucket. The CLI uploads the file under
 * `uploads/<import id>/`, and the summary lands beside it; everything the state machine makes on the
 * way (chunks, the manifest, the split's report, the Map's results) lives under `work/`, which expires
 * sooner. The construct grants each function, and the state machine, only the keys named here.
 */
export const UPLOADS_PREFIX = 'uploads/';
export const WORK_PREFIX = 'work/';
/** Where the Distributed Map's ResultWriter puts each map run's manifest and result files (it adds the run's id). */
export const MAP_RESULTS_PREFIX = `${WORK_PREFIX}results`;

/** The bucket's name in a function's environment. */
export const UPLOADS_BUCKET_VARIABLE = 'REGISTER_UPLOADS_BUCKET';

/** IAM object-key patterns, one per kind of object, so each grant names exactly the objects its holder touches. */
export const OBJECT_PATTERNS = {
  uploads: `${UPLOADS_PREFIX}*`,
  summaries: `${UPLOADS_PREFIX}*/summary.json`,
  chunks: `${WORK_PREFIX}*/chunks/*`,
  manifests: `${WORK_PREFIX}*/manifest.json`,
  splitReports: `${WORK_PREFIX}*/split.json`,
  mapResults: `${MAP_RESULTS_PREFIX}/*`,
} as const;

/** Execution names and import ids: letters, digits, '-' and '_' (Step Functions' rule for names), up to 80. */
const IMPORT_ID = /^[A-Za-z0-9_-]{1,80}$/;

export class InvalidUploadKeyError extends Error {
  constructor(key: string) {
    super(`${key} is not an upload of a register import (${UPLOADS_PREFIX}<import id>/<file name>)`);
    this.name = 'InvalidUploadKeyError';
  }
}

/** A new import's id: sortable by time, and unique enough for one operator's uploads. */
export function newImportId(now: Date, random: string): string {
  return `${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${random}`;
}

export const uploadKeyOf = (importId: string, fileName: string): string => `${UPLOADS_PREFIX}${importId}/${basename(fileName)}`;

/** The import id and file name an upload key names; refuses any other key, so nothing outside `uploads/` is ever read. */
export function parseUploadKey(key: string): { importId: string; fileName: string } {
  const [prefix, importId, fileName, ...rest] = key.split('/');
  if (`${prefix}/` !== UPLOADS_PREFIX || !importId || !IMPORT_ID.test(importId) || !fileName || rest.length > 0) {
    throw new InvalidUploadKeyError(key);
  }
  return { importId, fileName };
}

export const summaryKeyOf = (uploadKey: string): string => `${uploadKey.slice(0, uploadKey.lastIndexOf('/'))}/summary.json`;
export const manifestKeyOf = (importId: string): string => `${WORK_PREFIX}${importId}/manifest.json`;
export const splitReportKeyOf = (importId: string): string => `${WORK_PREFIX}${importId}/split.json`;
/** Chunks sort in file order: by the entry's position in the upload, then the chunk's. */
export const chunkKeyOf = (importId: string, entry: number, chunk: number): string =>
  `${WORK_PREFIX}${importId}/chunks/${String(entry).padStart(3, '0')}-${String(chunk).padStart(5, '0')}.csv`;

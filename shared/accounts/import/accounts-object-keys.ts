import { basename } from 'node:path';

/**
 * Where an accounts import keeps its objects in the uploads bucket, beside the register import's and
 * apart from them: the archive under `accounts/<archive stem>/`, its summary beside it, and what the
 * state machine makes on the way (the manifest, the Map's results) under `accounts-work/`, which
 * expires sooner. The construct grants each function, and the state machine, only the keys named here.
 */
export const ACCOUNTS_PREFIX = 'accounts/';
export const ACCOUNTS_WORK_PREFIX = 'accounts-work/';
/** Where the Distributed Map's ResultWriter puts each map run's manifest and result files (it adds the run's id). */
export const ACCOUNTS_MAP_RESULTS_PREFIX = `${ACCOUNTS_WORK_PREFIX}results`;

/** IAM object-key patterns, one per kind of object. */
export const ACCOUNTS_OBJECT_PATTERNS = {
  archives: `${ACCOUNTS_PREFIX}*.zip`,
  summaries: `${ACCOUNTS_PREFIX}*/summary.json`,
  manifests: `${ACCOUNTS_WORK_PREFIX}*/manifest.json`,
  mapResults: `${ACCOUNTS_MAP_RESULTS_PREFIX}/*`,
} as const;

/** The Accounts Data Product's two kinds of archive, by name: a working day's, and a month's. */
const DAILY = /^Accounts_Bulk_Data-\d{4}-\d{2}-\d{2}\.zip$/;
const MONTHLY = /^Accounts_Monthly_Data-(January|February|March|April|May|June|July|August|September|October|November|December)\d{4}\.zip$/;

export const isAccountsArchiveName = (name: string): boolean => DAILY.test(name) || MONTHLY.test(name);

export class InvalidAccountsKeyError extends Error {
  constructor(key: string) {
    super(`${key} is not an accounts archive upload (${ACCOUNTS_PREFIX}<import id>/<archive>.zip)`);
    this.name = 'InvalidAccountsKeyError';
  }
}

/** Import ids are execution names too: letters, digits, '-' and '_', up to 80. */
const IMPORT_ID = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * An archive's key: under a folder named after it, so the same archive always lands on the same key
 * (a repeated download finds it there) and its summary has a place of its own.
 */
export function archiveKeyOf(archive: string): string {
  const name = basename(archive);
  return `${ACCOUNTS_PREFIX}${name.replace(/\.zip$/i, '')}/${name}`;
}

/** The import id and archive name an upload key names; refuses any other key, so nothing outside `accounts/` is ever read. */
export function parseArchiveKey(key: string): { importId: string; archive: string } {
  const [prefix, importId, archive, ...rest] = key.split('/');
  if (`${prefix}/` !== ACCOUNTS_PREFIX || !importId || !IMPORT_ID.test(importId) || !archive || !/\.zip$/i.test(archive) || rest.length > 0)
    throw new InvalidAccountsKeyError(key);
  return { importId, archive };
}

export const accountsSummaryKeyOf = (archiveKey: string): string => `${archiveKey.slice(0, archiveKey.lastIndexOf('/'))}/summary.json`;
export const accountsManifestKeyOf = (importId: string): string => `${ACCOUNTS_WORK_PREFIX}${importId}/manifest.json`;

import type { ImportFormat } from './import-sources';

/**
 * Whether the files of an import make up a whole register snapshot, so that a company they do not
 * list can be taken as gone: the CRO file is always the whole register; the Companies House bulk
 * product is whole as "BasicCompanyDataAsOneFile-…", or as every part "…-partK_M" of M.
 */
export function isWholeSnapshot(format: ImportFormat, names: readonly string[]): boolean {
  if (format === 'cro-companies') return true;
  if (format !== 'companies-house-bulk') return false;
  if (names.some((name) => /AsOneFile/i.test(name))) return true;
  const parts = names.map((name) => /part(\d+)_(\d+)/i.exec(name)).filter((match) => match !== null);
  const of = new Set(parts.map((match) => Number(match[2])));
  if (parts.length === 0 || of.size !== 1) return false;
  const total = [...of][0] as number;
  const seen = new Set(parts.map((match) => Number(match[1])));
  return Array.from({ length: total }, (_, index) => index + 1).every((part) => seen.has(part));
}

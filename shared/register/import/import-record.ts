import type { ProfileInput } from '../../companies/company-store';
import type { ProfileContent } from '../../companies/profile';

/** One input record: a profile to save, or the reason its line cannot be one. */
export interface ImportRecord {
  /** 1-based line of the input where the record starts. */
  readonly line: number;
  /** The file inside an archive the line belongs to. */
  readonly file?: string;
  readonly profile?: ProfileInput;
  readonly error?: string;
  /** Register values no rule knows (mapped to `other` or left unknown), for the summary. */
  readonly unknownValues?: readonly { readonly field: string; readonly value: string }[];
}

/** A record whose profile is finished content (NDJSON documents, demo rows), not a draft. */
export type ContentRecord = Omit<ImportRecord, 'profile'> & { readonly profile?: ProfileContent };

/** What a failure says, for the line it is reported against. */
export const messageOf = (reason: unknown) => (reason instanceof Error ? reason.message : String(reason));

import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { validateProfileContent } from '../../companies/profile-validation';
import { type ContentRecord, messageOf } from './import-record';

/**
 * Reads newline-delimited JSON, one profile document per line (as the API returns it, or without
 * version and updatedAt). Blank lines are skipped; a line that is not JSON or not a valid profile
 * becomes an error record naming what is wrong.
 */
export async function* readNdjsonProfiles(stream: Readable): AsyncGenerator<ContentRecord> {
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield { line, error: `not valid JSON: ${messageOf(error)}` };
      continue;
    }
    const validation = validateProfileContent(value);
    yield validation.ok ? { line, profile: validation.profile } : { line, error: validation.errors.join('; ') };
  }
}

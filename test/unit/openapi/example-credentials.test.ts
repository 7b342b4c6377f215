import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../shared/openapi/document';
import { tokenRequest } from '../../../shared/openapi/examples';

const root = new URL('../../../', import.meta.url).pathname;

/** A client id, client secret or webhook signing secret as the service issues them. */
const ISSUED_CREDENTIAL = /\bcli_[A-Za-z0-9]{16}\b|\bbsk_[A-Za-z0-9_-]{20,}|\bwhsec_[A-Za-z0-9+/]{40,}={0,2}/g;
/** The one placeholder shape the CLI's own examples use, which no issued id has. */
const PLACEHOLDER_ID = 'cli_0123456789abcdef';

const credentialsIn = (text: string) =>
  [...text.matchAll(ISSUED_CREDENTIAL)]
    .map((match) => match[0])
    .filter((found) => found !== PLACEHOLDER_ID && !found.startsWith('whsec_Your'));

const filesUnder = (folder: string, extensions: readonly string[]): string[] =>
  readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => extensions.some((extension) => file.endsWith(extension)))
    .map((file) => join(folder, file));

describe('credentials in examples', () => {
  it('are placeholders in the OpenAPI document, which the reference page renders', () => {
    expect(tokenRequest).toEqual({ grant_type: 'client_credentials', client_id: 'your-client-id', client_secret: 'your-client-secret' });
    expect(credentialsIn(JSON.stringify(openApiDocument))).toEqual([]);
  });

  it('are placeholders in the README, the docs, the SDK and the workspace', () => {
    const files = [
      'README.md',
      'packages/client/README.md',
      ...filesUnder('docs', ['.md']),
      ...filesUnder('web/src', ['.ts', '.tsx']),
      ...filesUnder('web/reference', ['.html', '.ts']),
      ...filesUnder('packages/client/examples', ['.ts']),
    ];
    const found = files.flatMap((file) =>
      credentialsIn(readFileSync(join(root, file), 'utf8')).map((credential) => `${file}: ${credential}`),
    );
    expect(found).toEqual([]);
  });
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDataKeys, LocalKmsKey } from '../../local/kms';
import { EnvelopeSealer, type SecretSealer } from '../../shared/crypto/secret-sealer';

/** A sealer as the local runtime's functions have one, its key in a folder of its own. */
export function testSealer(): SecretSealer {
  return new EnvelopeSealer(new LocalDataKeys(new LocalKmsKey(join(mkdtempSync(join(tmpdir(), 'bureau-kms-')), 'key'))));
}

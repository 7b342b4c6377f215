import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDataKeys, LocalKmsKey } from '../../local/kms';
import { EnvelopeSealer, type SecretSealer } from '../../shared/crypto/secret-sealer';
import v1 from '../fixtures/webhooks/sealed-secret-v1.json' with { type: 'json' };

/** A sealer as the local runtime's functions have one, its key in a folder of its own. */
export function testSealer(): SecretSealer {
  return new EnvelopeSealer(new LocalDataKeys(new LocalKmsKey(join(mkdtempSync(join(tmpdir(), 'bureau-kms-')), 'key'))));
}

/** A key file holding the given key (base64), in a folder of its own. */
export function keyFileWith(key: string): string {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'bureau-kms-')), 'key');
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return keyFile;
}

/**
 * A secret sealed in the v1 format by the code that wrote it (its data key under the purpose alone),
 * and a sealer holding the local key that wrapped that data key.
 */
export function v1SealedSecret() {
  const keys = new LocalDataKeys(new LocalKmsKey(keyFileWith(v1.localKey)));
  return { keys, sealer: new EnvelopeSealer(keys), ...v1 };
}

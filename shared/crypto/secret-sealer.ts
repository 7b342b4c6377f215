import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Data keys from a key service: a fresh one to seal with (its plaintext for this process only, its
 * encrypted form to store beside what it seals), and an encrypted one opened again. On AWS: KMS.
 */
export interface DataKeys {
  generate(): Promise<{ readonly plaintext: Uint8Array; readonly encrypted: Uint8Array }>;
  decrypt(encrypted: Uint8Array): Promise<Uint8Array>;
}

/** Seals secrets at rest and opens them where they are used; `context` binds a sealed value to its owner. */
export interface SecretSealer {
  seal(plaintext: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}

export class UnsealableSecretError extends Error {
  constructor(reason: string) {
    super(`A sealed secret could not be opened: ${reason}`);
    this.name = 'UnsealableSecretError';
  }
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A data key seals for this long, or this many secrets, before the next is asked for. */
const WRITE_KEY_MS = 5 * 60_000;
const WRITE_KEY_USES = 10_000;
/** Opened data keys are kept this long, and at most this many, so opening costs KMS a call per key and instance. */
const OPEN_KEY_MS = 60 * 60_000;
const OPEN_KEYS_KEPT = 1_000;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/**
 * Envelope encryption: each secret is sealed with AES-256-GCM under a data key, with its context
 * (the subscription it belongs to) as additional authenticated data, so a sealed value moved to
 * another owner does not open. The data key's encrypted form travels in the sealed value:
 * `v1.<encrypted data key>.<iv>.<ciphertext>.<tag>`, base64url. Anything else is refused: a value in
 * clear never passes for a sealed one.
 */
export class EnvelopeSealer implements SecretSealer {
  private writeKey?: { key: Promise<{ plaintext: Buffer; encrypted: string }>; until: number; uses: number };
  private readonly opened = new Map<string, { key: Promise<Buffer>; until: number }>();

  constructor(
    private readonly keys: DataKeys,
    private readonly clock: () => number = Date.now,
  ) {}

  async seal(plaintext: string, context: string): Promise<string> {
    const { plaintext: key, encrypted } = await this.keyToSeal();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, encrypted, b64(iv), b64(data), b64(cipher.getAuthTag())].join('.');
  }

  async open(sealed: string, context: string): Promise<string> {
    const [version, encrypted, iv, data, tag] = sealed.split('.');
    if (version !== VERSION || !encrypted || !iv || !data || !tag) throw new UnsealableSecretError('not a sealed value');
    const key = await this.keyToOpen(encrypted);
    const tagBytes = Buffer.from(tag, 'base64url');
    if (tagBytes.length !== TAG_BYTES) throw new UnsealableSecretError('its tag is damaged');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new UnsealableSecretError('it was sealed for another owner, or altered');
    }
  }

  /** One data key at a time, shared by every seal while it lasts, however many start at once. */
  private keyToSeal(): Promise<{ plaintext: Buffer; encrypted: string }> {
    const now = this.clock();
    const current = this.writeKey;
    if (current && current.until > now && current.uses < WRITE_KEY_USES) {
      current.uses += 1;
      return current.key;
    }
    const key = this.keys.generate().then((fresh) => {
      const made = { plaintext: Buffer.from(fresh.plaintext), encrypted: b64(fresh.encrypted) };
      // The key just made opens what it sealed without asking for it again.
      this.remember(made.encrypted, Promise.resolve(made.plaintext), now);
      return made;
    });
    const next = { key, until: now + WRITE_KEY_MS, uses: 1 };
    this.writeKey = next;
    // A key that could not be made is forgotten, so the next seal asks again.
    key.catch(() => {
      if (this.writeKey === next) this.writeKey = undefined;
    });
    return key;
  }

  private keyToOpen(encrypted: string): Promise<Buffer> {
    const now = this.clock();
    const kept = this.opened.get(encrypted);
    if (kept && kept.until > now) return kept.key;
    const key = this.keys.decrypt(Buffer.from(encrypted, 'base64url')).then((plaintext) => Buffer.from(plaintext));
    // A failed decryption is not kept: the next attempt asks again.
    key.catch(() => this.opened.delete(encrypted));
    this.remember(encrypted, key, now);
    return key;
  }

  private remember(encrypted: string, key: Promise<Buffer>, now: number): void {
    if (this.opened.size >= OPEN_KEYS_KEPT) {
      const oldest = this.opened.keys().next().value;
      if (oldest !== undefined) this.opened.delete(oldest);
    }
    this.opened.set(encrypted, { key, until: now + OPEN_KEY_MS });
  }
}

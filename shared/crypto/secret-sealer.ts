import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { clientEncryptionContext, type EncryptionContext, PURPOSE_CONTEXT } from './webhook-secrets-key';

/**
 * Data keys from a key service, each bound to an encryption context: a fresh one to seal with (its
 * plaintext for this process only, its encrypted form to store beside what it seals), and an
 * encrypted one opened again under the same context. On AWS: KMS.
 */
export interface DataKeys {
  generate(context: EncryptionContext): Promise<{ readonly plaintext: Uint8Array; readonly encrypted: Uint8Array }>;
  decrypt(encrypted: Uint8Array, context: EncryptionContext): Promise<Uint8Array>;
}

/**
 * Whom a sealed secret belongs to: the client, whose own data keys seal it, and the exact owner
 * within that client (its subscription), bound as additional data.
 */
export interface SealBinding {
  readonly clientId: string;
  readonly owner: string;
}

/** Seals secrets at rest and opens them where they are used, each for the one owner it was sealed for. */
export interface SecretSealer {
  seal(plaintext: string, binding: SealBinding): Promise<string>;
  open(sealed: string, binding: SealBinding): Promise<string>;
}

export class UnsealableSecretError extends Error {
  constructor(reason: string) {
    super(`A sealed secret could not be opened: ${reason}`);
    this.name = 'UnsealableSecretError';
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A data key seals for this long, or this many secrets, before the next is asked for. */
const WRITE_KEY_MS = 5 * 60_000;
const WRITE_KEY_USES = 10_000;
/** Opened data keys are kept this long, and at most this many, so opening costs KMS a call per key and instance. */
const OPEN_KEY_MS = 60 * 60_000;
const OPEN_KEYS_KEPT = 1_000;
/** Clients whose sealing key is kept at once: sealing is rare (a subscription made or rotated). */
const WRITE_KEYS_KEPT = 1_000;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** A sealed value taken apart: the data key's context comes from the value itself, never from the caller. */
interface Envelope {
  readonly context: EncryptionContext;
  readonly clientId?: string;
  readonly encrypted: string;
  readonly iv: string;
  readonly data: string;
  readonly tag: string;
}

/**
 * `v2.<client id>.<encrypted data key>.<iv>.<ciphertext>.<tag>`: the data key's context names the
 * client. `v1.<encrypted data key>.<iv>.<ciphertext>.<tag>`: sealed before that, under the purpose
 * alone; still opened, never written.
 */
function parse(sealed: string): Envelope | undefined {
  const parts = sealed.split('.');
  if (parts[0] === 'v2' && parts.length === 6) {
    const [, client, encrypted, iv, data, tag] = parts as [string, string, string, string, string, string];
    const clientId = Buffer.from(client, 'base64url').toString('utf8');
    if (!clientId || !encrypted || !iv || !data || !tag) return undefined;
    return { context: clientEncryptionContext(clientId), clientId, encrypted, iv, data, tag };
  }
  if (parts[0] === 'v1' && parts.length === 5) {
    const [, encrypted, iv, data, tag] = parts as [string, string, string, string, string];
    if (!encrypted || !iv || !data || !tag) return undefined;
    return { context: PURPOSE_CONTEXT, encrypted, iv, data, tag };
  }
  return undefined;
}

/** Opened data keys are found by context and key together: the same bytes under another context are another key. */
const cacheKey = (context: EncryptionContext, encrypted: string) => `${JSON.stringify(Object.entries(context).sort())}|${encrypted}`;

/**
 * Envelope encryption: each secret is sealed with AES-256-GCM under a data key of its client (the
 * key service binds the data key to the client's encryption context), with its owner (the
 * subscription it belongs to) as additional authenticated data, so a sealed value moved to another
 * owner or client does not open. The data key's encrypted form travels in the sealed value, base64url.
 * Anything else is refused: a value in clear never passes for a sealed one.
 */
export class EnvelopeSealer implements SecretSealer {
  private readonly writeKeys = new Map<string, { key: Promise<{ plaintext: Buffer; encrypted: string }>; until: number; uses: number }>();
  private readonly opened = new Map<string, { key: Promise<Buffer>; until: number }>();

  constructor(
    private readonly keys: DataKeys,
    private readonly clock: () => number = Date.now,
  ) {}

  async seal(plaintext: string, binding: SealBinding): Promise<string> {
    if (!binding.clientId) throw new Error('A secret is sealed for a client');
    const { plaintext: key, encrypted } = await this.keyToSeal(binding.clientId);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(binding.owner, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v2', b64(Buffer.from(binding.clientId, 'utf8')), encrypted, b64(iv), b64(data), b64(cipher.getAuthTag())].join('.');
  }

  async open(sealed: string, binding: SealBinding): Promise<string> {
    const envelope = parse(sealed);
    if (!envelope) throw new UnsealableSecretError('not a sealed value');
    if (envelope.clientId !== undefined && envelope.clientId !== binding.clientId) {
      throw new UnsealableSecretError('it was sealed for another client');
    }
    const tagBytes = Buffer.from(envelope.tag, 'base64url');
    if (tagBytes.length !== TAG_BYTES) throw new UnsealableSecretError('its tag is damaged');
    const key = await this.keyToOpen(envelope.context, envelope.encrypted);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64url'));
      decipher.setAAD(Buffer.from(binding.owner, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(envelope.data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new UnsealableSecretError('it was sealed for another owner, or altered');
    }
  }

  /** One data key per client at a time, shared by every seal for that client while it lasts, however many start at once. */
  private keyToSeal(clientId: string): Promise<{ plaintext: Buffer; encrypted: string }> {
    const now = this.clock();
    const current = this.writeKeys.get(clientId);
    if (current && current.until > now && current.uses < WRITE_KEY_USES) {
      current.uses += 1;
      return current.key;
    }
    const context = clientEncryptionContext(clientId);
    const key = this.keys.generate(context).then((fresh) => {
      const made = { plaintext: Buffer.from(fresh.plaintext), encrypted: b64(fresh.encrypted) };
      // The key just made opens what it sealed without asking for it again.
      this.remember(cacheKey(context, made.encrypted), Promise.resolve(made.plaintext), now);
      return made;
    });
    const next = { key, until: now + WRITE_KEY_MS, uses: 1 };
    this.writeKeys.delete(clientId);
    if (this.writeKeys.size >= WRITE_KEYS_KEPT) {
      const oldest = this.writeKeys.keys().next().value;
      if (oldest !== undefined) this.writeKeys.delete(oldest);
    }
    this.writeKeys.set(clientId, next);
    // A key that could not be made is forgotten, so the next seal asks again.
    key.catch(() => {
      if (this.writeKeys.get(clientId) === next) this.writeKeys.delete(clientId);
    });
    return key;
  }

  private keyToOpen(context: EncryptionContext, encrypted: string): Promise<Buffer> {
    const now = this.clock();
    const found = cacheKey(context, encrypted);
    const kept = this.opened.get(found);
    if (kept && kept.until > now) return kept.key;
    const key = this.keys.decrypt(Buffer.from(encrypted, 'base64url'), context).then((plaintext) => Buffer.from(plaintext));
    // A failed decryption is not kept: the next attempt asks again.
    key.catch(() => this.opened.delete(found));
    this.remember(found, key, now);
    return key;
  }

  private remember(found: string, key: Promise<Buffer>, now: number): void {
    if (this.opened.size >= OPEN_KEYS_KEPT) {
      const oldest = this.opened.keys().next().value;
      if (oldest !== undefined) this.opened.delete(oldest);
    }
    this.opened.set(found, { key, until: now + OPEN_KEY_MS });
  }
}

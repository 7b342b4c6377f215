import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type { DataKeys } from '../shared/crypto/secret-sealer';
import type { EncryptionContext } from '../shared/crypto/webhook-secrets-key';

/** The name the local runtime gives the key; deployed, the stack's key ARN stands here. */
export const LOCAL_WEBHOOK_SECRETS_KEY_ID = 'alias/bureau-local-webhook-secrets';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The local stand-in for a KMS key: 32 random bytes in a file of the data folder, owner-only, made on
 * first use and then kept, so what was sealed stays readable across restarts. Data keys are wrapped
 * with AES-256-GCM under it, the encryption context as additional data, as KMS binds them.
 */
export class LocalKmsKey {
  private readonly master: Buffer;

  constructor(keyFile: string) {
    this.master = loadOrCreate(keyFile);
  }

  wrap(plaintext: Uint8Array, context: EncryptionContext): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.master, iv);
    cipher.setAAD(contextBytes(context));
    const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), data]);
  }

  /** Throws InvalidCiphertextException, as KMS does, for a blob it did not wrap or a context other than the one it was wrapped under. */
  unwrap(blob: Uint8Array, context: EncryptionContext): Buffer {
    const bytes = Buffer.from(blob);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.master, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(contextBytes(context));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new InvalidCiphertextError();
    }
  }
}

/** KMS's refusal of a data key it did not make, or asked for under another encryption context. */
export class InvalidCiphertextError extends Error {
  constructor() {
    super('The ciphertext or its encryption context is not valid');
    this.name = 'InvalidCiphertextException';
  }
}

/** The same data keys the functions get through the stand-in, for operator tools on the same folder. */
export class LocalDataKeys implements DataKeys {
  constructor(private readonly key: LocalKmsKey) {}

  async generate(context: EncryptionContext): Promise<{ plaintext: Uint8Array; encrypted: Uint8Array }> {
    const plaintext = randomBytes(32);
    return { plaintext, encrypted: this.key.wrap(plaintext, context) };
  }

  async decrypt(encrypted: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    return this.key.unwrap(encrypted, context);
  }
}

const contextBytes = (context: Readonly<Record<string, string>>) =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))), 'utf8');

/** A damaged key file is named at start, not met as a cipher error at the first secret. */
function readKey(keyFile: string): Buffer {
  const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${keyFile} does not hold a 256-bit key in base64; restore it, or the sealed secrets stay closed`);
  return key;
}

function loadOrCreate(keyFile: string): Buffer {
  try {
    return readKey(keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  try {
    // 'wx' refuses to overwrite: of two first starts at once, the first file written is the key.
    const fd = openSync(keyFile, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('base64')}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readKey(keyFile);
}

export interface LocalKms {
  /** Give it to a function as KMS_ENDPOINT. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024;

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw new Error('request too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/**
 * KMS's GenerateDataKey and Decrypt over its own wire protocol (JSON 1.1, `TrentService.` targets,
 * blobs in base64), answering for the one local key, on loopback only: the functions seal and open
 * webhook signing secrets through the SDK exactly as they do deployed.
 */
export async function startLocalKms(options: { keyFile: string }): Promise<LocalKms> {
  const key = new LocalKmsKey(options.keyFile);
  const reply = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(body));
  };
  const server = createServer(async (request, response) => {
    try {
      const operation = String(request.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '');
      const input = await bodyOf(request);
      const context = (input.EncryptionContext ?? {}) as Record<string, string>;
      if (input.KeyId !== undefined && input.KeyId !== LOCAL_WEBHOOK_SECRETS_KEY_ID) {
        return reply(response, 400, { __type: 'NotFoundException', message: `Key '${String(input.KeyId)}' does not exist` });
      }
      if (operation === 'GenerateDataKey') {
        const plaintext = randomBytes(32);
        return reply(response, 200, {
          KeyId: LOCAL_WEBHOOK_SECRETS_KEY_ID,
          Plaintext: plaintext.toString('base64'),
          CiphertextBlob: key.wrap(plaintext, context).toString('base64'),
        });
      }
      if (operation === 'Decrypt') {
        let plaintext: Buffer;
        try {
          plaintext = key.unwrap(Buffer.from(String(input.CiphertextBlob ?? ''), 'base64'), context);
        } catch (error) {
          if (!(error instanceof InvalidCiphertextError)) throw error;
          return reply(response, 400, { __type: error.name, message: error.message });
        }
        return reply(response, 200, { KeyId: LOCAL_WEBHOOK_SECRETS_KEY_ID, Plaintext: plaintext.toString('base64') });
      }
      reply(response, 400, {
        __type: 'UnsupportedOperationException',
        message: `The local stand-in serves GenerateDataKey and Decrypt, not ${operation}`,
      });
    } catch (error) {
      reply(response, 500, { __type: 'KMSInternalException', message: (error as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

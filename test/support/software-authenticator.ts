import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** Authenticator data flags (WebAuthn §6.1): user present, user verified, attested credential data. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const base64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');
const uint32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};

/** The P-256 public key as a COSE_Key (alg ES256), as an authenticator reports it at registration. */
function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x, 'base64url')],
      [-3, Buffer.from(jwk.y, 'base64url')],
    ]),
  );
}

export interface Assertion {
  /** Whether the authenticator says it verified the user (PIN, biometrics). */
  readonly userVerified?: boolean;
  /** The signature counter it reports; authenticators that keep none report 0. */
  readonly counter: number;
}

/**
 * A passkey authenticator in software, for tests that drive the workspace's WebAuthn routes with
 * answers a real authenticator could give (and some it should not): it registers one ES256
 * credential and signs assertions with the flags and counter the test chooses.
 */
export class SoftwareAuthenticator {
  readonly credentialId = base64url(randomBytes(32));
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  constructor(private readonly origin: string) {}

  private get rpIdHash(): Buffer {
    return sha256(new URL(this.origin).hostname);
  }

  private clientData(type: string, challenge: string): string {
    return JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false });
  }

  registration(challenge: string, options: Assertion) {
    const id = Buffer.from(this.credentialId, 'base64url');
    const authData = Buffer.concat([
      this.rpIdHash,
      Buffer.from([UP | AT | (options.userVerified === false ? 0 : UV)]),
      uint32(options.counter),
      Buffer.alloc(16),
      Buffer.from([id.length >> 8, id.length & 0xff]),
      id,
      coseKey(this.keys.publicKey),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: Buffer.from(this.clientData('webauthn.create', challenge)).toString('base64url'),
        attestationObject: base64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  assertion(challenge: string, options: Assertion) {
    const authData = Buffer.concat([this.rpIdHash, Buffer.from([UP | (options.userVerified === false ? 0 : UV)]), uint32(options.counter)]);
    const clientDataJSON = Buffer.from(this.clientData('webauthn.get', challenge));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: base64url(clientDataJSON),
        authenticatorData: base64url(authData),
        signature: base64url(signature),
      },
    };
  }
}

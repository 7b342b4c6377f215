import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { logger } from '../observability/logger';
import type { Person, StoredPasskey } from './people';
import type { SignedIn, WorkspaceAuth, WorkspaceStore } from './workspace-auth';

/** Where passkeys are scoped: the workspace origin and its host name (WebAuthn's relying party id). */
export interface RelyingParty {
  readonly origin: string;
  readonly id: string;
}

export const relyingPartyOf = (origin: string): RelyingParty => ({ origin, id: new URL(origin).hostname });

export class PasskeyRefusedError extends Error {
  constructor(reason = 'The passkey could not be verified; try again or sign in with your password.') {
    super(reason);
    this.name = 'PasskeyRefusedError';
  }
}

const RP_NAME = 'Bureau workspace';

/**
 * Passkeys (WebAuthn) beside passwords: a signed-in person registers one, then signs in with it
 * alone. Challenges are kept server-side, answerable once and for five minutes.
 */
export class Passkeys {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly auth: Pick<WorkspaceAuth, 'startSession'>,
  ) {}

  async registrationOptions(person: Person, rp: RelyingParty) {
    const existing = await this.store.passkeysOf(person.personId);
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.id,
      userName: person.email,
      userID: new TextEncoder().encode(person.personId),
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: transportsOf(passkey.transports) })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    const challengeId = await this.store.saveChallenge({ challenge: options.challenge, personId: person.personId });
    return { challengeId, options };
  }

  async register(person: Person, rp: RelyingParty, challengeId: string, response: RegistrationResponseJSON): Promise<void> {
    const challenge = await this.store.takeChallenge(challengeId);
    if (!challenge || challenge.personId !== person.personId) throw new PasskeyRefusedError('The passkey request expired; start again.');
    const verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    }).catch(() => ({ verified: false as const }));
    if (!verification.verified) throw new PasskeyRefusedError();
    const { credential } = verification.registrationInfo;
    await this.store.addPasskey({
      credentialId: credential.id,
      personId: person.personId,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      ...(credential.transports ? { transports: credential.transports } : {}),
      createdAt: new Date().toISOString(),
    });
  }

  async signInOptions(rp: RelyingParty) {
    const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required' });
    return { challengeId: await this.store.saveChallenge({ challenge: options.challenge }), options };
  }

  async signIn(rp: RelyingParty, challengeId: string, response: AuthenticationResponseJSON): Promise<SignedIn> {
    const challenge = await this.store.takeChallenge(challengeId);
    if (!challenge) throw new PasskeyRefusedError('The passkey request expired; start again.');
    const id = response?.id;
    // WebAuthn credential ids are at most 1,023 bytes: a longer one names no passkey and never reaches storage.
    const passkey = typeof id === 'string' && id.length <= MAX_CREDENTIAL_ID_LENGTH ? await this.store.passkey(id) : undefined;
    if (!passkey) throw new PasskeyRefusedError();
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.counter,
        ...(passkey.transports ? { transports: transportsOf(passkey.transports) } : {}),
      },
      requireUserVerification: true,
    }).catch((error: unknown) => {
      if (/counter/i.test((error as Error)?.message ?? '')) counterWentBack(passkey);
      return { verified: false as const };
    });
    if (!verification.verified) throw new PasskeyRefusedError();
    // Conditional on the counter read above: of two sign-ins with one assertion, only one moves it.
    if (!(await this.store.updatePasskeyCounter(passkey, verification.authenticationInfo.newCounter))) {
      counterWentBack(passkey);
      throw new PasskeyRefusedError();
    }
    const person = await this.store.person(passkey.personId);
    if (!person) throw new PasskeyRefusedError();
    return this.auth.startSession(person);
  }
}

const transportsOf = (transports: readonly string[] | undefined) => transports as AuthenticatorTransport[] | undefined;

/** base64url of WebAuthn's longest credential id (1,023 bytes). */
const MAX_CREDENTIAL_ID_LENGTH = 1364;

/** A signature counter that did not move forward can mean a cloned authenticator: worth an operator's look. */
function counterWentBack(passkey: StoredPasskey): void {
  logger.warn('passkey sign-in refused: its signature counter did not move forward', {
    personId: passkey.personId,
    credentialId: passkey.credentialId,
  });
}

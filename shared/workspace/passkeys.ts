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
import { DEFAULT_PASSKEY_NAME, MAX_PASSKEYS, type Person, type Session, type StoredPasskey } from './people';
import type { PasskeyView } from './wire';
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

/** A signed-in person's passkey check failed: the session stays, the check does not count. */
export class PasskeyCheckRefusedError extends Error {
  constructor() {
    super('That passkey could not be verified as one of yours; try another, or confirm with your password.');
    this.name = 'PasskeyCheckRefusedError';
  }
}

export class PasskeyNotFoundError extends Error {
  constructor() {
    super('You have no such passkey: it may have been removed already.');
    this.name = 'PasskeyNotFoundError';
  }
}

export class TooManyPasskeysError extends Error {
  constructor() {
    super(`You have ${MAX_PASSKEYS} passkeys, as many as a person may hold: remove one before adding another.`);
    this.name = 'TooManyPasskeysError';
  }
}

const RP_NAME = 'Bureau workspace';

/**
 * Passkeys (WebAuthn) beside passwords: a signed-in person who has just proved who they are
 * registers one, then signs in with it alone; they list and remove their own. Challenges are kept
 * server-side, answerable once and for five minutes. Every addition and removal is kept in the
 * person's passkey history and logged.
 */
export class Passkeys {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly auth: Pick<WorkspaceAuth, 'startSession' | 'assertRecentCheck'>,
  ) {}

  /** Asks the authenticator for a new passkey; only within RECENT_CHECK_SECONDS of a password or passkey check. */
  async registrationOptions(person: Person, session: Session, rp: RelyingParty) {
    this.auth.assertRecentCheck(session);
    const existing = await this.store.passkeysOf(person.personId);
    if (existing.length >= MAX_PASSKEYS) throw new TooManyPasskeysError();
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

  /**
   * Keeps the passkey the authenticator made for the challenge. The challenge was issued only after
   * a recent check, to this person, and lives five minutes: that bounds how long after the check a
   * passkey can still be added.
   */
  async register(
    person: Person,
    session: Session,
    rp: RelyingParty,
    challengeId: string,
    response: RegistrationResponseJSON,
    name: string = DEFAULT_PASSKEY_NAME,
  ): Promise<void> {
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
    await this.store.addPasskey(
      {
        credentialId: credential.id,
        personId: person.personId,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        ...(credential.transports ? { transports: credential.transports } : {}),
        name,
      },
      session,
    );
    logger.info('workspace passkey added', {
      personId: person.personId,
      clientId: person.clientId,
      credentialId: credential.id,
      by: 'person',
    });
  }

  async list(person: Person): Promise<PasskeyView[]> {
    return passkeyViewsOf(await this.store.passkeysOf(person.personId));
  }

  async remove(person: Person, credentialId: string): Promise<void> {
    const removed =
      credentialId.length <= MAX_CREDENTIAL_ID_LENGTH ? await this.store.removePasskey(person.personId, credentialId, 'person') : undefined;
    if (!removed) throw new PasskeyNotFoundError();
    logger.info('workspace passkey removed', { personId: person.personId, clientId: person.clientId, credentialId, by: 'person' });
  }

  async signInOptions(rp: RelyingParty) {
    const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required' });
    return { challengeId: await this.store.saveChallenge({ challenge: options.challenge }), options };
  }

  async signIn(rp: RelyingParty, challengeId: string, response: AuthenticationResponseJSON): Promise<SignedIn> {
    const challenge = await this.store.takeChallenge(challengeId);
    if (!challenge) throw new PasskeyRefusedError('The passkey request expired; start again.');
    const passkey = await this.verified(rp, challenge.challenge, response);
    const person = await this.store.person(passkey.personId);
    if (!person) throw new PasskeyRefusedError();
    return this.auth.startSession(person);
  }

  /** A check of a signed-in person with one of their own passkeys, offered only those. */
  async checkOptions(person: Person, rp: RelyingParty) {
    const passkeys = await this.store.passkeysOf(person.personId);
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: 'required',
      allowCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: transportsOf(passkey.transports) })),
    });
    return { challengeId: await this.store.saveChallenge({ challenge: options.challenge, personId: person.personId }), options };
  }

  /** Verifies the person with one of their passkeys: the session's last check becomes now. */
  async check(
    person: Person,
    cookieValue: string,
    rp: RelyingParty,
    challengeId: string,
    response: AuthenticationResponseJSON,
  ): Promise<void> {
    const challenge = await this.store.takeChallenge(challengeId);
    if (!challenge || challenge.personId !== person.personId) throw new PasskeyCheckRefusedError();
    const passkey = await this.verified(rp, challenge.challenge, response).catch((error: unknown) => {
      if (error instanceof PasskeyRefusedError) return undefined;
      throw error;
    });
    if (!passkey || passkey.personId !== person.personId) throw new PasskeyCheckRefusedError();
    await this.store.markChecked(cookieValue);
  }

  /** The stored passkey that signed the challenge, its counter moved forward and its use recorded; PasskeyRefusedError for any other answer. */
  private async verified(rp: RelyingParty, challenge: string, response: AuthenticationResponseJSON): Promise<StoredPasskey> {
    const id = response?.id;
    // WebAuthn credential ids are at most 1,023 bytes: a longer one names no passkey and never reaches storage.
    const passkey = typeof id === 'string' && id.length <= MAX_CREDENTIAL_ID_LENGTH ? await this.store.passkey(id) : undefined;
    if (!passkey) throw new PasskeyRefusedError();
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
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
    return passkey;
  }
}

/** Passkeys as their person (or an operator) sees them, oldest first. */
export const passkeyViewsOf = (passkeys: readonly StoredPasskey[]): PasskeyView[] =>
  passkeys
    .map((passkey) => ({
      id: passkey.credentialId,
      name: passkey.name ?? DEFAULT_PASSKEY_NAME,
      createdAt: passkey.createdAt,
      lastUsedAt: passkey.lastUsedAt ?? null,
    }))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));

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

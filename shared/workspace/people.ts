import { createHash, randomBytes } from 'node:crypto';

/** A person who signs in to a client's workspace. People are not API clients and hold no client secret. */
export interface Person {
  readonly personId: string;
  readonly clientId: string;
  readonly email: string;
  readonly passwordHash?: string;
  readonly createdAt: string;
  /** Sessions created before this moment (epoch ms) are over: "sign out everywhere". */
  readonly sessionsNotBefore?: number;
  /** Invitations issued before this moment (epoch ms) are void: following one link voids the others. */
  readonly invitationsNotBefore?: number;
}

export interface Session {
  readonly personId: string;
  readonly clientId: string;
  /** Sent back by the app on every change; compared with the header, never read from a cookie. */
  readonly csrfToken: string;
  readonly createdAtMs: number;
  /**
   * When the person last proved who they are in this session (epoch ms): the sign-in that began it,
   * or a password or passkey checked again since. Absent on sessions begun before it was kept, whose
   * last check is their beginning.
   */
  readonly checkedAtMs?: number;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

export interface StoredPasskey {
  readonly credentialId: string;
  readonly personId: string;
  /** COSE public key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports?: readonly string[];
  /** What the person called it, to tell their passkeys apart; "Passkey" when they gave no name. */
  readonly name?: string;
  readonly createdAt: string;
  /** The last sign-in or check made with it. */
  readonly lastUsedAt?: string;
}

/** Who changed a person's passkeys: the person, an operator (`bureau workspace passkeys`), or a reset by sign-in link. */
export type PasskeyChanger = 'person' | 'operator' | 'sign-in link';

/** One entry of a person's passkey history, kept beside their passkeys. */
export interface PasskeyChange {
  readonly change: 'added' | 'removed';
  readonly by: PasskeyChanger;
  readonly credentialId: string;
  readonly name: string;
  readonly at: string;
}

export const DEFAULT_PASSKEY_NAME = 'Passkey';
export const MAX_PASSKEY_NAME_LENGTH = 60;
/** Passkeys a person may hold: more would serve no one, and a reset removes them all in one transaction. */
export const MAX_PASSKEYS = 20;

export const INVITATION_HOURS = 24;
export const SESSION_HOURS = 12;
/** E-mail addresses are compared and stored in lower case; 254 is the longest address SMTP carries. */
export const MAX_EMAIL_LENGTH = 254;

export const newPersonId = () => `per_${randomBytes(12).toString('base64url')}`;
/** 256-bit random secrets: invitation tokens and session secrets. Only their hash is stored. */
export const newSecret = () => randomBytes(32).toString('base64url');
export const secretDigest = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('base64url');

export function normalizeEmail(value: string): string | undefined {
  const email = value.trim().toLowerCase();
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH) return undefined;
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : undefined;
}

export class InvitationUnusableError extends Error {
  constructor() {
    super('This sign-in link has been used, has expired or was never issued; ask for a new one.');
    this.name = 'InvitationUnusableError';
  }
}

export class SessionEndedError extends Error {
  constructor() {
    super('This session has ended; sign in again.');
    this.name = 'SessionEndedError';
  }
}

export class EmailTakenError extends Error {
  constructor(readonly email: string) {
    super(`${email} already belongs to another client's workspace.`);
    this.name = 'EmailTakenError';
  }
}

import { addressBucket, type RateLimiter } from '../auth/rate-limit';
import type { DynamoWorkspaceStore } from './dynamo-workspace-store';
import { hashPassword, passwordProblem, verifyPassword } from './passwords';
import { normalizeEmail, type Person, type Session, secretDigest } from './people';

export type WorkspaceStore = Pick<
  DynamoWorkspaceStore,
  | 'invite'
  | 'usableInvitation'
  | 'redeem'
  | 'person'
  | 'personByEmail'
  | 'createSession'
  | 'session'
  | 'endSession'
  | 'endAllSessions'
  | 'addPasskey'
  | 'passkeysOf'
  | 'passkey'
  | 'updatePasskeyCounter'
  | 'saveChallenge'
  | 'takeChallenge'
>;

/**
 * Sign-in attempts per minute, counted before the password is checked. A person is guarded per
 * address they are tried from, so a flood from one address locks that address out of their account,
 * not them; the looser limit across all addresses bounds guessing from many.
 */
export const SIGN_IN_LIMITS = { perPersonPerAddress: 10, perAddress: 30, perPerson: 100 } as const;
/** Attempts to redeem invitation links per minute, counted before the link is looked up. */
export const INVITATION_LIMITS = { perLink: 10, perAddress: 30 } as const;

export class SignInRefusedError extends Error {
  constructor() {
    super('The e-mail address or the password is wrong.');
    this.name = 'SignInRefusedError';
  }
}

export class TooManySignInsError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many sign-in attempts; try again in ${retryAfterSeconds} s.`);
    this.name = 'TooManySignInsError';
  }
}

export class TooManyInvitationAttemptsError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many attempts to use a sign-in link; try again in ${retryAfterSeconds} s.`);
    this.name = 'TooManyInvitationAttemptsError';
  }
}

export class WeakPasswordError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'WeakPasswordError';
  }
}

export interface SignedIn {
  readonly cookieValue: string;
  readonly session: Session;
  readonly person: Person;
}

/** Signing people in and out of the workspace. Knows nothing of HTTP. */
export class WorkspaceAuth {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly limiter: Pick<RateLimiter, 'consume'>,
  ) {}

  /**
   * Every attempt is counted first, atomically, per address, per e-mail address from that address
   * and per e-mail address from anywhere, and the answer is taken from the counts: parallel guesses
   * cannot slip under the limit. An unknown address costs a password hash like a known one, so timing
   * does not say who has an account.
   */
  async signIn(emailInput: string, password: string, sourceIp: string): Promise<SignedIn> {
    const wellFormed = normalizeEmail(emailInput);
    // A malformed address is still counted (by what was typed), and then refused like a wrong password.
    const email = wellFormed ?? emailInput.slice(0, 320).toLowerCase();
    const address = addressBucket(sourceIp);
    const retryAfter = await this.overLimit([
      [`workspace-ip#${address}`, SIGN_IN_LIMITS.perAddress],
      [`workspace-person-ip#${email}#${address}`, SIGN_IN_LIMITS.perPersonPerAddress],
      [`workspace-person#${email}`, SIGN_IN_LIMITS.perPerson],
    ]);
    if (retryAfter !== undefined) throw new TooManySignInsError(retryAfter);
    const person = wellFormed ? await this.store.personByEmail(wellFormed) : undefined;
    const matches = await verifyPassword(password, person?.passwordHash);
    if (!person || !matches) throw new SignInRefusedError();
    return this.startSession(person);
  }

  /**
   * Spends a one-time link: the person chooses a password and is signed in. The cheap work comes
   * first (counting the attempt, looking the link up), so only a live link costs a strength check
   * and a password hash.
   */
  async acceptInvitation(token: string, password: string, sourceIp: string): Promise<SignedIn> {
    const retryAfter = await this.overLimit([
      [`invite-ip#${addressBucket(sourceIp)}`, INVITATION_LIMITS.perAddress],
      [`invite-link#${secretDigest(token)}`, INVITATION_LIMITS.perLink],
    ]);
    if (retryAfter !== undefined) throw new TooManyInvitationAttemptsError(retryAfter);
    const invitation = await this.store.usableInvitation(token);
    const problem = await passwordProblem(password, ['bureau', 'workspace', ...emailWords(invitation.person.email)]);
    if (problem) throw new WeakPasswordError(problem);
    return this.store.redeem(invitation, await hashPassword(password));
  }

  current(cookieValue: string | undefined): Promise<{ session: Session; person: Person } | undefined> {
    return cookieValue === undefined ? Promise.resolve(undefined) : this.store.session(cookieValue);
  }

  async signOut(cookieValue: string): Promise<void> {
    await this.store.endSession(cookieValue);
  }

  async signOutEverywhere(person: Person): Promise<void> {
    await this.store.endAllSessions(person.personId);
  }

  async startSession(person: Person): Promise<SignedIn> {
    const { cookieValue, session } = await this.store.createSession(person);
    return { cookieValue, session, person };
  }

  /** Counts one attempt in every bucket at once; the seconds until the fullest refusing bucket resets, if any refuses. */
  private async overLimit(buckets: readonly (readonly [string, number])[]): Promise<number | undefined> {
    const counts = await Promise.all(buckets.map(([key, limit]) => this.limiter.consume(key, limit)));
    const refused = counts.filter((count) => !count.allowed);
    return refused.length === 0 ? undefined : Math.max(...refused.map((count) => count.resetSeconds));
  }
}

/** The words of an address's local part and domain: a password built from them is easy to guess. */
const emailWords = (email: string) => email.split(/[@.+_-]+/).filter((word) => word.length >= 3);

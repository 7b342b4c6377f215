import { addressBucket, type RateLimiter } from '../auth/rate-limit';
import { logger } from '../observability/logger';
import type { DynamoWorkspaceStore, Redeemed } from './dynamo-workspace-store';
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
  | 'removePasskey'
  | 'passkeyChanges'
  | 'passkeysOf'
  | 'markChecked'
  | 'passkey'
  | 'updatePasskeyCounter'
  | 'saveChallenge'
  | 'takeChallenge'
>;

/**
 * Sign-in attempts per minute, counted before the password is checked, in this order: per person
 * from one address block (an IPv4 address, an IPv6 /64), per address block, per person from
 * anywhere. An attempt refused by one limit is not counted against the ones after it, so one block
 * adds at most `perPersonPerAddress` to the person's count: a flood from one place locks that place
 * out of the account, never the person out of it from elsewhere, and only guesses from
 * `perPerson / perPersonPerAddress` blocks or more in one minute reach the limit across all of them.
 */
export const SIGN_IN_LIMITS = { perPersonPerAddress: 10, perAddress: 30, perPerson: 100 } as const;
/**
 * How recent a password or passkey check must be for a signed-in person to add a passkey: the
 * sign-in that began the session, or a check made again in it.
 */
export const RECENT_CHECK_SECONDS = 300;
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

/** A signed-in person's password check failed: the session stays, the check does not count. */
export class PasswordRefusedError extends Error {
  constructor() {
    super('That is not your password.');
    this.name = 'PasswordRefusedError';
  }
}

export class RecentCheckRequiredError extends Error {
  constructor() {
    super(
      `Confirm it is you first: adding a passkey needs your password or one of your passkeys, checked in the last ${RECENT_CHECK_SECONDS / 60} minutes.`,
    );
    this.name = 'RecentCheckRequiredError';
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
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Every attempt is counted first, atomically, per e-mail address from that address block, per
   * address block and per e-mail address from anywhere, and the answer is taken from the counts:
   * parallel guesses cannot slip under the limit. An unknown address costs a password hash like a
   * known one, so timing does not say who has an account.
   */
  async signIn(emailInput: string, password: string, sourceIp: string): Promise<SignedIn> {
    const wellFormed = normalizeEmail(emailInput);
    // A malformed address is still counted (by what was typed), and then refused like a wrong password.
    const email = wellFormed ?? emailInput.slice(0, 320).toLowerCase();
    await this.countSignIn(email, sourceIp);
    const person = wellFormed ? await this.store.personByEmail(wellFormed) : undefined;
    const matches = await verifyPassword(password, person?.passwordHash);
    if (!person || !matches) throw new SignInRefusedError();
    return this.startSession(person);
  }

  /**
   * A signed-in person types their password again: the check the session's sign-in was, made now.
   * Counted against the same limits as signing in, so it is no second way to guess.
   */
  async confirmPassword(person: Person, cookieValue: string, password: string, sourceIp: string): Promise<void> {
    await this.countSignIn(person.email, sourceIp);
    if (!(await verifyPassword(password, person.passwordHash))) throw new PasswordRefusedError();
    await this.store.markChecked(cookieValue);
  }

  /** Refuses unless the person proved who they are in this session within RECENT_CHECK_SECONDS. */
  assertRecentCheck(session: Session): void {
    const checkedAtMs = session.checkedAtMs ?? session.createdAtMs;
    if (this.clock() - checkedAtMs > RECENT_CHECK_SECONDS * 1000) throw new RecentCheckRequiredError();
  }

  private async countSignIn(email: string, sourceIp: string): Promise<void> {
    const address = addressBucket(sourceIp);
    const retryAfter = await this.overLimit([
      [`workspace-person-ip#${email}#${address}`, SIGN_IN_LIMITS.perPersonPerAddress],
      [`workspace-ip#${address}`, SIGN_IN_LIMITS.perAddress],
      [`workspace-person#${email}`, SIGN_IN_LIMITS.perPerson],
    ]);
    if (retryAfter !== undefined) throw new TooManySignInsError(retryAfter);
  }

  /**
   * Spends a one-time link: the person chooses a password, loses every passkey, and is signed in. The cheap work comes
   * first (counting the attempt, looking the link up), so only a live link costs a strength check
   * and a password hash.
   */
  async acceptInvitation(token: string, password: string, sourceIp: string): Promise<Redeemed> {
    const retryAfter = await this.overLimit([
      [`invite-ip#${addressBucket(sourceIp)}`, INVITATION_LIMITS.perAddress],
      [`invite-link#${secretDigest(token)}`, INVITATION_LIMITS.perLink],
    ]);
    if (retryAfter !== undefined) throw new TooManyInvitationAttemptsError(retryAfter);
    const invitation = await this.store.usableInvitation(token);
    const problem = await passwordProblem(password, ['bureau', 'workspace', ...emailWords(invitation.person.email)]);
    if (problem) throw new WeakPasswordError(problem);
    const redeemed = await this.store.redeem(invitation, await hashPassword(password));
    if (redeemed.passkeysRemoved.length > 0) {
      logger.info('workspace passkeys removed', {
        personId: redeemed.person.personId,
        clientId: redeemed.person.clientId,
        count: redeemed.passkeysRemoved.length,
        by: 'sign-in link',
      });
    }
    return redeemed;
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

  /**
   * Counts one attempt in each bucket in turn, stopping at the first that refuses it (the seconds
   * until that bucket resets): a refused attempt is never charged to the buckets after it, so a
   * caller already over its own limit cannot use up a limit that others depend on.
   */
  private async overLimit(buckets: readonly (readonly [string, number])[]): Promise<number | undefined> {
    for (const [key, limit] of buckets) {
      const count = await this.limiter.consume(key, limit);
      if (!count.allowed) return count.resetSeconds;
    }
    return undefined;
  }
}

/** The words of an address's local part and domain: a password built from them is easy to guess. */
const emailWords = (email: string) => email.split(/[@.+_-]+/).filter((word) => word.length >= 3);

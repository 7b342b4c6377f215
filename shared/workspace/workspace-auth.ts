import type { RateLimiter } from '../auth/rate-limit';
import type { DynamoWorkspaceStore } from './dynamo-workspace-store';
import { hashPassword, passwordProblem, verifyPassword } from './passwords';
import { normalizeEmail, type Person, type Session } from './people';

export type WorkspaceStore = Pick<
  DynamoWorkspaceStore,
  | 'invite'
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

/** Sign-in attempts per minute, counted before the password is checked. */
export const SIGN_IN_LIMITS = { perPerson: 10, perAddress: 30 } as const;

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
   * Every attempt is counted per address and per e-mail address first, atomically, and the answer is
   * taken from the counts: parallel guesses cannot slip under the limit. An unknown address costs a
   * password hash like a known one, so timing does not say who has an account.
   */
  async signIn(emailInput: string, password: string, sourceIp: string): Promise<SignedIn> {
    const wellFormed = normalizeEmail(emailInput);
    // A malformed address is still counted (by what was typed), and then refused like a wrong password.
    const email = wellFormed ?? emailInput.slice(0, 320).toLowerCase();
    const [byAddress, byPerson] = await Promise.all([
      this.limiter.consume(`workspace-ip#${sourceIp}`, SIGN_IN_LIMITS.perAddress),
      this.limiter.consume(`workspace-person#${email}`, SIGN_IN_LIMITS.perPerson),
    ]);
    if (!byAddress.allowed || !byPerson.allowed) {
      throw new TooManySignInsError(Math.max(byAddress.allowed ? 0 : byAddress.resetSeconds, byPerson.allowed ? 0 : byPerson.resetSeconds));
    }
    const person = wellFormed ? await this.store.personByEmail(wellFormed) : undefined;
    const matches = await verifyPassword(password, person?.passwordHash);
    if (!person || !matches) throw new SignInRefusedError();
    return this.startSession(person);
  }

  /** Spends a one-time link: the person chooses a password and is signed in. */
  async acceptInvitation(token: string, password: string): Promise<SignedIn> {
    const problem = await passwordProblem(password, ['bureau', 'workspace']);
    if (problem) throw new WeakPasswordError(problem);
    const person = await this.store.redeem(token, await hashPassword(password));
    return this.startSession(person);
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
}

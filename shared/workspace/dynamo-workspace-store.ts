import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../storage/batch';
import {
  DEFAULT_PASSKEY_NAME,
  EmailTakenError,
  INVITATION_HOURS,
  InvitationUnusableError,
  newPersonId,
  newSecret,
  type PasskeyChange,
  type PasskeyChanger,
  type Person,
  SESSION_HOURS,
  type Session,
  SessionEndedError,
  type StoredPasskey,
  secretDigest,
} from './people';

const PERSON = 'PERSON';
const personKey = (personId: string) => ({ pk: `PERSON#${personId}`, sk: PERSON });
const emailKey = (email: string) => ({ pk: `EMAIL#${email}`, sk: 'EMAIL' });
const invitationKey = (token: string) => ({ pk: `INVITE#${secretDigest(token)}`, sk: 'INVITE' });
const sessionKey = (secret: string) => ({ pk: `SESSION#${secretDigest(secret)}`, sk: 'SESSION' });
const passkeyKey = (personId: string, credentialId: string) => ({ pk: `PERSON#${personId}`, sk: `PASSKEY#${credentialId}` });
const passkeyOwnerKey = (credentialId: string) => ({ pk: `PASSKEY#${credentialId}`, sk: 'PASSKEY' });
const challengeKey = (id: string) => ({ pk: `CHALLENGE#${secretDigest(id)}`, sk: 'CHALLENGE' });
const PASSKEY_CHANGE = 'PASSKEY-CHANGE#';
/** A credential id can be 1,364 characters: the history's sort key carries its digest. */
const passkeyChangeKey = (personId: string, at: string, change: PasskeyChange['change'], credentialId: string) => ({
  pk: `PERSON#${personId}`,
  sk: `${PASSKEY_CHANGE}${at}#${change}#${secretDigest(credentialId)}`,
});
/** The passkey history is kept a year, then TTL takes it. */
const PASSKEY_HISTORY_DAYS = 365;
/** Passkeys a redemption removes in its own transaction (three writes each, beside its three). */
const PASSKEYS_PER_REDEMPTION = 30;
/** Redemptions retried when the person's passkeys changed between reading and writing them. */
const REDEMPTION_ATTEMPTS = 5;

/** A session cookie: the person it belongs to, so the session and the person are read together, and the secret. */
const COOKIE_PATTERN = /^(per_[A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

export interface Invitation {
  /** Goes into the link, once; only its hash is stored. */
  readonly token: string;
  readonly person: Person;
  readonly expiresAt: string;
}

/** A link that can still be spent, with the person it belongs to. */
export interface UsableInvitation {
  readonly token: string;
  readonly person: Person;
  readonly issuedAtMs: number;
}

interface StoredInvitation {
  readonly personId: string;
  readonly expiresAt: number;
  /** Absent on links issued before it was recorded: their issue time follows from their expiry. */
  readonly issuedAtMs?: number;
  readonly usedAt?: string;
  readonly usedBySession?: string;
}

const issuedAtOf = (invitation: StoredInvitation) => invitation.issuedAtMs ?? (invitation.expiresAt - INVITATION_HOURS * 3600) * 1000;

/** A followed link: the new session, and the names of the passkeys it removed. */
export interface Redeemed {
  readonly cookieValue: string;
  readonly session: Session;
  readonly person: Person;
  readonly passkeysRemoved: readonly string[];
}

const passkeyNameOf = (passkey: Pick<StoredPasskey, 'name'>) => passkey.name ?? DEFAULT_PASSKEY_NAME;

/** A person as stored: `passkeysVersion` moves with every passkey added or removed. */
type StoredPerson = Person & { readonly passkeysVersion?: number };

export interface Challenge {
  readonly challenge: string;
  readonly personId?: string;
}

const CHALLENGE_SECONDS = 300;

/** People, invitations, sessions and passkeys of the client workspace, in the workspace table. */
export class DynamoWorkspaceStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * A single-use link for the person with this address, created on the first invitation. An address
   * belongs to one client: inviting it to another is refused.
   */
  async invite(clientId: string, email: string): Promise<Invitation> {
    const person = await this.personFor(clientId, email);
    const token = newSecret();
    const expiresAtMs = this.clock() + INVITATION_HOURS * 3600_000;
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...invitationKey(token),
          personId: person.personId,
          clientId,
          email,
          issuedAtMs: this.clock(),
          expiresAt: Math.floor(expiresAtMs / 1000),
        },
      }),
    );
    return { token, person, expiresAt: new Date(expiresAtMs).toISOString() };
  }

  /**
   * The invitation a link carries and its person, read before any password work: an unknown, used,
   * expired or superseded link is refused for the price of two key reads.
   */
  async usableInvitation(token: string): Promise<UsableInvitation> {
    const invitation = await this.get<StoredInvitation>(invitationKey(token));
    if (!invitation || invitation.usedAt !== undefined || invitation.expiresAt <= Math.floor(this.clock() / 1000)) {
      throw new InvitationUnusableError();
    }
    const person = await this.person(invitation.personId);
    const issuedAtMs = issuedAtOf(invitation);
    if (!person || issuedAtMs < (person.invitationsNotBefore ?? 0)) throw new InvitationUnusableError();
    return { token, person, issuedAtMs };
  }

  /**
   * One transaction: the link is spent, the password set, every passkey of the person removed, every
   * other outstanding link of theirs voided, every other session ended, and the new session started.
   * A link works once, and a person who follows a link (a forgotten password, a suspected break-in)
   * is left with one session, their new password and no passkey that anyone else may hold. The
   * transaction holds only if the person's passkeys are still those read: one added meanwhile sends
   * it round again.
   */
  async redeem(invitation: UsableInvitation, passwordHash: string): Promise<Redeemed> {
    for (let attempt = 0; attempt < REDEMPTION_ATTEMPTS; attempt++) {
      const redeemed = await this.redeemWith(invitation, passwordHash);
      if (redeemed) return redeemed;
    }
    throw new Error("the person's passkeys kept changing while the sign-in link was followed");
  }

  /** One try at a redemption; undefined when the person's passkeys changed meanwhile. */
  private async redeemWith(invitation: UsableInvitation, passwordHash: string): Promise<Redeemed | undefined> {
    const personId = invitation.person.personId;
    let passkeys = await this.passkeysOf(personId);
    // More than one transaction holds (only a race past MAX_PASSKEYS makes so many): the surplus goes first.
    for (const surplus of passkeys.slice(PASSKEYS_PER_REDEMPTION)) await this.removePasskey(personId, surplus.credentialId, 'sign-in link');
    passkeys = passkeys.slice(0, PASSKEYS_PER_REDEMPTION);
    const version = (await this.person(personId))?.passkeysVersion;
    const now = this.clock();
    // Everything begun before this millisecond is over; the new session begins at it, so it survives.
    const stamp = now;
    const at = new Date(now).toISOString();
    const { secret, cookieValue, session } = this.newSession(invitation.person, stamp);
    const transaction = new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: this.tableName,
            Key: invitationKey(invitation.token),
            UpdateExpression: 'SET usedAt = :usedAt, usedBySession = :session',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt) AND expiresAt > :nowSeconds',
            ExpressionAttributeValues: {
              ':usedAt': at,
              ':session': secretDigest(secret),
              ':nowSeconds': Math.floor(now / 1000),
            },
          },
        },
        {
          Update: {
            TableName: this.tableName,
            Key: personKey(personId),
            UpdateExpression: 'SET passwordHash = :hash, sessionsNotBefore = :stamp, invitationsNotBefore = :stamp',
            ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(invitationsNotBefore) OR invitationsNotBefore <= :issuedAt) AND ${
              version === undefined ? 'attribute_not_exists(passkeysVersion)' : 'passkeysVersion = :version'
            }`,
            ExpressionAttributeValues: {
              ':hash': passwordHash,
              ':stamp': stamp,
              ':issuedAt': invitation.issuedAtMs,
              ...(version === undefined ? {} : { ':version': version }),
            },
          },
        },
        {
          Put: {
            TableName: this.tableName,
            Item: { ...sessionKey(secret), ...session },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...passkeys.flatMap((passkey) => this.passkeyRemovalWrites(passkey, 'sign-in link', at)),
      ],
    });
    try {
      await this.doc.send(transaction);
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      // The SDK resends a transaction whose answer it did not get: the link may have been spent by this very redemption.
      if (await this.spentBy(invitation.token, secret))
        return this.redeemed(invitation, passwordHash, stamp, cookieValue, session, passkeys);
      if (error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') throw new InvitationUnusableError();
      // Superseded by a newer link, or only the passkeys changed (or a write collided): then again.
      const person = await this.person(personId);
      if (!person || invitation.issuedAtMs < (person.invitationsNotBefore ?? 0)) throw new InvitationUnusableError();
      return undefined;
    }
    return this.redeemed(invitation, passwordHash, stamp, cookieValue, session, passkeys);
  }

  private redeemed(
    invitation: UsableInvitation,
    passwordHash: string,
    stamp: number,
    cookieValue: string,
    session: Session,
    passkeys: readonly StoredPasskey[],
  ): Redeemed {
    const person = { ...invitation.person, passwordHash, sessionsNotBefore: stamp, invitationsNotBefore: stamp };
    return { cookieValue, session, person, passkeysRemoved: passkeys.map(passkeyNameOf) };
  }

  private async spentBy(token: string, sessionSecret: string): Promise<boolean> {
    const invitation = await this.get<StoredInvitation>(invitationKey(token));
    return invitation?.usedBySession === secretDigest(sessionSecret);
  }

  async person(personId: string): Promise<StoredPerson | undefined> {
    return this.get<StoredPerson>(personKey(personId));
  }

  async personByEmail(email: string): Promise<Person | undefined> {
    const entry = await this.get<{ personId: string }>(emailKey(email));
    return entry && this.person(entry.personId);
  }

  async createSession(person: Person): Promise<{ cookieValue: string; session: Session }> {
    const { secret, cookieValue, session } = this.newSession(person, this.clock());
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: { ...sessionKey(secret), ...session } }));
    return { cookieValue, session };
  }

  private newSession(person: Person, createdAtMs: number): { secret: string; cookieValue: string; session: Session } {
    const secret = newSecret();
    const session: Session = {
      personId: person.personId,
      clientId: person.clientId,
      csrfToken: newSecret(),
      createdAtMs,
      // Every session begins with a check: a password, a passkey or a sign-in link.
      checkedAtMs: createdAtMs,
      expiresAt: Math.floor(createdAtMs / 1000) + SESSION_HOURS * 3600,
    };
    return { secret, cookieValue: `${person.personId}.${secret}`, session };
  }

  /** The live session a cookie names and its person, read together; undefined for anything else. */
  async session(cookieValue: string): Promise<{ session: Session; person: Person } | undefined> {
    const parts = COOKIE_PATTERN.exec(cookieValue);
    if (!parts) return undefined;
    const [, personId = '', secret = ''] = parts;
    const items = await batchGet<(Session & { sk: string }) | (Person & { sk: string })>(this.doc, this.tableName, [
      sessionKey(secret),
      personKey(personId),
    ]);
    const session = items.find((item) => item.sk === 'SESSION') as Session | undefined;
    const person = items.find((item) => item.sk === PERSON) as Person | undefined;
    if (!session || !person || session.personId !== personId) return undefined;
    if (session.expiresAt <= Math.floor(this.clock() / 1000)) return undefined;
    if (session.createdAtMs < (person.sessionsNotBefore ?? 0)) return undefined;
    return { session, person };
  }

  async endSession(cookieValue: string): Promise<void> {
    const parts = COOKIE_PATTERN.exec(cookieValue);
    if (parts?.[2]) await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: sessionKey(parts[2]) }));
  }

  /** Every session of the person, this one included, ends now. */
  async endAllSessions(personId: string): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: personKey(personId),
        UpdateExpression: 'SET sessionsNotBefore = :now',
        ConditionExpression: 'attribute_exists(pk)',
        // A session created in the same millisecond must end too.
        ExpressionAttributeValues: { ':now': this.clock() + 1 },
      }),
    );
  }

  /**
   * Adds a passkey for the session's person, with its entry in their history, on condition that the
   * session is still live: a session that a sign-in link ended a moment ago cannot add one after the
   * link removed the others.
   */
  async addPasskey(added: Omit<StoredPasskey, 'createdAt'>, session: Pick<Session, 'createdAtMs'>): Promise<StoredPasskey> {
    const at = new Date(this.clock()).toISOString();
    const passkey: StoredPasskey = { ...added, createdAt: at };
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: personKey(passkey.personId),
                UpdateExpression: 'ADD passkeysVersion :one',
                ConditionExpression:
                  'attribute_exists(pk) AND (attribute_not_exists(sessionsNotBefore) OR sessionsNotBefore <= :sessionBegan)',
                ExpressionAttributeValues: { ':one': 1, ':sessionBegan': session.createdAtMs },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...passkeyOwnerKey(passkey.credentialId), personId: passkey.personId },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName: this.tableName, Item: { ...passkeyKey(passkey.personId, passkey.credentialId), ...passkey } } },
            this.passkeyChangePut(passkey, 'added', 'person', at),
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
        throw new SessionEndedError();
      }
      throw error;
    }
    return passkey;
  }

  /** Removes one passkey of the person, with its entry in their history; undefined when they have no such passkey. */
  async removePasskey(personId: string, credentialId: string, by: PasskeyChanger): Promise<StoredPasskey | undefined> {
    const passkey = await this.get<StoredPasskey>(passkeyKey(personId, credentialId));
    if (!passkey) return undefined;
    try {
      await this.doc.send(
        new TransactWriteCommand({ TransactItems: this.passkeyRemovalWrites(passkey, by, new Date(this.clock()).toISOString()) }),
      );
      return passkey;
    } catch (error) {
      // Removed meanwhile, by another hand.
      if (error instanceof TransactionCanceledException) return undefined;
      throw error;
    }
  }

  /** The person's passkey history, oldest first. */
  async passkeyChanges(personId: string): Promise<PasskeyChange[]> {
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :changes)',
        ExpressionAttributeValues: { ':pk': `PERSON#${personId}`, ':changes': PASSKEY_CHANGE },
        ConsistentRead: true,
      }),
    );
    return ((result.Items ?? []) as Array<PasskeyChange & Record<string, unknown>>).map(({ change, by, credentialId, name, at }) => ({
      change,
      by,
      credentialId,
      name,
      at,
    }));
  }

  /** The writes that remove a passkey: its two items (the first on condition that it is there), the version, the history. */
  private passkeyRemovalWrites(passkey: StoredPasskey, by: PasskeyChanger, at: string) {
    return [
      {
        Delete: {
          TableName: this.tableName,
          Key: passkeyKey(passkey.personId, passkey.credentialId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      { Delete: { TableName: this.tableName, Key: passkeyOwnerKey(passkey.credentialId) } },
      ...(by === 'sign-in link'
        ? []
        : [
            {
              Update: {
                TableName: this.tableName,
                Key: personKey(passkey.personId),
                UpdateExpression: 'ADD passkeysVersion :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
          ]),
      this.passkeyChangePut(passkey, 'removed', by, at),
    ];
  }

  private passkeyChangePut(passkey: StoredPasskey, change: PasskeyChange['change'], by: PasskeyChanger, at: string) {
    const entry: PasskeyChange = { change, by, credentialId: passkey.credentialId, name: passkeyNameOf(passkey), at };
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...passkeyChangeKey(passkey.personId, at, change, passkey.credentialId),
          ...entry,
          expiresAt: Math.floor(Date.parse(at) / 1000) + PASSKEY_HISTORY_DAYS * 24 * 3600,
        },
      },
    };
  }

  async passkeysOf(personId: string): Promise<StoredPasskey[]> {
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :passkeys)',
        ExpressionAttributeValues: { ':pk': `PERSON#${personId}`, ':passkeys': 'PASSKEY#' },
        ConsistentRead: true,
      }),
    );
    return (result.Items ?? []) as StoredPasskey[];
  }

  async passkey(credentialId: string): Promise<StoredPasskey | undefined> {
    const owner = await this.get<{ personId: string }>(passkeyOwnerKey(credentialId));
    return owner && this.get<StoredPasskey>(passkeyKey(owner.personId, credentialId));
  }

  /**
   * Moves the signature counter forward from the value `passkey` was read with, and records the use;
   * false when the counter had moved meanwhile or would not move forward. An authenticator that keeps
   * no counter reports 0 every time (WebAuthn §6.1.1): 0 after 0 is accepted, only the use recorded.
   */
  async updatePasskeyCounter(passkey: StoredPasskey, counter: number): Promise<boolean> {
    const keepsNoCounter = counter === 0 && passkey.counter === 0;
    if (!keepsNoCounter && counter <= passkey.counter) return false;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: passkeyKey(passkey.personId, passkey.credentialId),
          UpdateExpression: 'SET #counter = :counter, lastUsedAt = :now',
          // Removed meanwhile, or the counter moved: either way this assertion no longer counts.
          ConditionExpression: 'attribute_exists(pk) AND #counter = :read',
          ExpressionAttributeNames: { '#counter': 'counter' },
          ExpressionAttributeValues: { ':counter': counter, ':read': passkey.counter, ':now': new Date(this.clock()).toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** The person proved who they are again in the session the cookie names: a check that counts as recent from now. */
  async markChecked(cookieValue: string): Promise<void> {
    const parts = COOKIE_PATTERN.exec(cookieValue);
    if (!parts?.[2]) throw new SessionEndedError();
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: sessionKey(parts[2]),
          UpdateExpression: 'SET checkedAtMs = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':now': this.clock() },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new SessionEndedError();
      throw error;
    }
  }

  /** A WebAuthn challenge, kept five minutes and answerable once. Returns its id. */
  async saveChallenge(challenge: Challenge): Promise<string> {
    const id = newSecret();
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...challengeKey(id), ...challenge, expiresAt: Math.floor(this.clock() / 1000) + CHALLENGE_SECONDS },
      }),
    );
    return id;
  }

  async takeChallenge(id: string): Promise<Challenge | undefined> {
    const result = await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: challengeKey(id), ReturnValues: 'ALL_OLD' }));
    const item = result.Attributes as (Challenge & { expiresAt: number }) | undefined;
    if (!item || item.expiresAt <= Math.floor(this.clock() / 1000)) return undefined;
    return { challenge: item.challenge, ...(item.personId ? { personId: item.personId } : {}) };
  }

  private async personFor(clientId: string, email: string): Promise<Person> {
    const existing = await this.personByEmail(email);
    if (existing) {
      if (existing.clientId !== clientId) throw new EmailTakenError(email);
      return existing;
    }
    const person: Person = { personId: newPersonId(), clientId, email, createdAt: new Date(this.clock()).toISOString() };
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.tableName, Item: { ...personKey(person.personId), ...person } } },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...emailKey(email), personId: person.personId, clientId },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return person;
    } catch (error) {
      // Invited twice at once: the other invitation created the person.
      if (error instanceof TransactionCanceledException) return this.personFor(clientId, email);
      throw error;
    }
  }

  private async get<T>(key: { pk: string; sk: string }): Promise<T | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return result.Item as T | undefined;
  }
}

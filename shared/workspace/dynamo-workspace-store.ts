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
  EmailTakenError,
  INVITATION_HOURS,
  InvitationUnusableError,
  newPersonId,
  newSecret,
  type Person,
  SESSION_HOURS,
  type Session,
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
   * One transaction: the link is spent, the password set, every other outstanding link of the person
   * voided, every other session of theirs ended, and the new session started. A link works once, and
   * a person who follows a link (a forgotten password, a suspected break-in) is left with one session.
   */
  async redeem(invitation: UsableInvitation, passwordHash: string): Promise<{ cookieValue: string; session: Session; person: Person }> {
    const now = this.clock();
    // Everything begun before this millisecond is over; the new session begins at it, so it survives.
    const stamp = now;
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
              ':usedAt': new Date(now).toISOString(),
              ':session': secretDigest(secret),
              ':nowSeconds': Math.floor(now / 1000),
            },
          },
        },
        {
          Update: {
            TableName: this.tableName,
            Key: personKey(invitation.person.personId),
            UpdateExpression: 'SET passwordHash = :hash, sessionsNotBefore = :stamp, invitationsNotBefore = :stamp',
            ConditionExpression:
              'attribute_exists(pk) AND (attribute_not_exists(invitationsNotBefore) OR invitationsNotBefore <= :issuedAt)',
            ExpressionAttributeValues: { ':hash': passwordHash, ':stamp': stamp, ':issuedAt': invitation.issuedAtMs },
          },
        },
        {
          Put: {
            TableName: this.tableName,
            Item: { ...sessionKey(secret), ...session },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    try {
      await this.doc.send(transaction);
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      // The SDK resends a transaction whose answer it did not get: the link may have been spent by this very redemption.
      if (!(await this.spentBy(invitation.token, secret))) throw new InvitationUnusableError();
    }
    const person = { ...invitation.person, passwordHash, sessionsNotBefore: stamp, invitationsNotBefore: stamp };
    return { cookieValue, session, person };
  }

  private async spentBy(token: string, sessionSecret: string): Promise<boolean> {
    const invitation = await this.get<StoredInvitation>(invitationKey(token));
    return invitation?.usedBySession === secretDigest(sessionSecret);
  }

  async person(personId: string): Promise<Person | undefined> {
    return this.get<Person>(personKey(personId));
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

  async addPasskey(passkey: StoredPasskey): Promise<void> {
    await this.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: { ...passkeyKey(passkey.personId, passkey.credentialId), ...passkey } } },
          {
            Put: {
              TableName: this.tableName,
              Item: { ...passkeyOwnerKey(passkey.credentialId), personId: passkey.personId },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
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
   * Moves the signature counter forward from the value `passkey` was read with; false when it had
   * moved meanwhile or would not move forward. An authenticator that keeps no counter reports 0
   * every time (WebAuthn §6.1.1): 0 after 0 is accepted and nothing is written.
   */
  async updatePasskeyCounter(passkey: StoredPasskey, counter: number): Promise<boolean> {
    if (counter === 0 && passkey.counter === 0) return true;
    if (counter <= passkey.counter) return false;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: passkeyKey(passkey.personId, passkey.credentialId),
          UpdateExpression: 'SET #counter = :counter',
          ConditionExpression: '#counter = :read',
          ExpressionAttributeNames: { '#counter': 'counter' },
          ExpressionAttributeValues: { ':counter': counter, ':read': passkey.counter },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
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

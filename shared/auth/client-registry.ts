import { displayNameProblem } from '../text/display-name';
export type ClientStatus = 'active' | 'disabled';

export interface SecretVersionInfo {
  readonly version: number;
  readonly createdAt: string;
  /** Epoch seconds after which this version no longer authenticates; absent on the newest version. */
  readonly expiresAt?: number;
}

/** A client as callers see it: never any secret material. */
export interface ClientRecord {
  readonly clientId: string;
  readonly name: string;
  readonly status: ClientStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Overrides the default per-client rate limit when present. */
  readonly rateLimitPerMinute?: number;
  /** Epoch seconds; tokens issued before it are refused. */
  readonly tokensNotBefore: number;
  readonly secretVersions: readonly SecretVersionInfo[];
}

export interface CreateClientInput {
  name: string;
  clientId?: string;
  secret?: string;
  rateLimitPerMinute?: number;
}

/** What verifiers need: one client record by id. */
export interface ClientLookup {
  get(clientId: string): Promise<ClientRecord | undefined>;
}

export interface ClientRegistry extends ClientLookup {
  create(input: CreateClientInput): Promise<{ client: ClientRecord; secret: string }>;
  list(options?: { cursor?: string; limit?: number }): Promise<{ clients: ClientRecord[]; cursor?: string }>;
  /** A chosen `secret` replaces the generated one (the local demo client's fixed credentials). */
  rotateSecret(clientId: string, options: { graceSeconds: number; secret?: string }): Promise<{ secret: string; version: number }>;
  disable(clientId: string): Promise<ClientRecord>;
  enable(clientId: string): Promise<ClientRecord>;
  /** The active client whose current (or still-in-grace) secret this is; undefined otherwise. */
  verifyCredentials(clientId: string, secret: string): Promise<ClientRecord | undefined>;
}

export class ClientRegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class ClientNotFoundError extends ClientRegistryError {
  constructor(readonly clientId: string) {
    super(`No client with id "${clientId}"`);
  }
}

export class ClientAlreadyExistsError extends ClientRegistryError {
  constructor(readonly clientId: string) {
    super(`A client with id "${clientId}" already exists`);
  }
}

export class ClientNameRequiredError extends ClientRegistryError {
  constructor() {
    super('A client needs a non-empty name');
  }
}

export class InvalidClientInputError extends ClientRegistryError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export class ConcurrentClientUpdateError extends ClientRegistryError {
  constructor(readonly clientId: string) {
    super(`Client "${clientId}" kept changing while being updated; try again`);
  }
}

/** Letters, digits, dot, dash and underscore; 3 to 64 characters, starting with a letter or digit. */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{2,63}$/;
export const isWellFormedClientId = (clientId: string): boolean => CLIENT_ID_PATTERN.test(clientId);

const MIN_SECRET_LENGTH = 32;
const MAX_SECRET_LENGTH = 512;
const MAX_NAME_LENGTH = 200;
const MAX_RATE_LIMIT_PER_MINUTE = 1_000_000;
const MAX_GRACE_SECONDS = 30 * 24 * 3600;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** The rules every registry applies to what operators give it. */
export function validName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw new ClientNameRequiredError();
  const trimmed = name.trim();
  if (trimmed.length > MAX_NAME_LENGTH)
    throw new InvalidClientInputError('name', `A client name has at most ${MAX_NAME_LENGTH} characters`);
  const problem = displayNameProblem(name);
  if (problem) throw new InvalidClientInputError('name', `A client name ${problem}`);
  return trimmed;
}

export function validClientId(clientId: string): string {
  if (!isWellFormedClientId(clientId)) {
    throw new InvalidClientInputError(
      'clientId',
      'A client id has 3 to 64 letters, digits, ".", "-" or "_", starting with a letter or digit',
    );
  }
  return clientId;
}

export function validSecret(secret: string): string {
  if (secret.length < MIN_SECRET_LENGTH || secret.length > MAX_SECRET_LENGTH || /\s/.test(secret)) {
    throw new InvalidClientInputError(
      'secret',
      `A client secret has ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters and no white space`,
    );
  }
  return secret;
}

export function validRateLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RATE_LIMIT_PER_MINUTE) {
    throw new InvalidClientInputError('rateLimitPerMinute', `rateLimitPerMinute is an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}`);
  }
  return limit;
}

export function validGrace(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_GRACE_SECONDS) {
    throw new InvalidClientInputError('graceSeconds', `graceSeconds is an integer from 0 to ${MAX_GRACE_SECONDS}`);
  }
  return seconds;
}

export function validPageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new InvalidClientInputError('limit', `limit is an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return limit;
}

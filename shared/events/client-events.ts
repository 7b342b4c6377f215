import { createHash } from 'node:crypto';
import type { BlockName, Jurisdiction } from '../companies/profile';
import type { ProfileEventType, WebhookEnvelope } from './envelope';

/** How long a client's events can be read back. */
export const EVENT_DAYS = 30;

/** An event as GET /v1/events answers it: the webhook's body, and an id of its own. */
export interface ClientEvent extends WebhookEnvelope {
  /** Stable for the event whoever reads it; the webhook-id header differs per endpoint, idempotencyKey does not. */
  readonly id: string;
}

export interface EventQuery {
  readonly limit: number;
  readonly cursor?: string;
  readonly since: Date;
  readonly until?: Date;
  readonly type?: ProfileEventType;
  readonly block?: BlockName;
  readonly jurisdiction?: Jurisdiction;
  readonly companyNumber?: string;
}

export interface EventPage {
  readonly items: readonly ClientEvent[];
  readonly nextCursor?: string;
}

export interface ClientEventStore {
  /** The event, for each client given; writing it again changes nothing. */
  recordFor(clientIds: readonly string[], event: WebhookEnvelope): Promise<void>;
  /** The client's events, newest first. */
  list(clientId: string, query: EventQuery): Promise<EventPage>;
}

export class InvalidEventCursorError extends Error {
  constructor() {
    super('The cursor is not one this listing returned');
    this.name = 'InvalidEventCursorError';
  }
}

export const eventIdOf = (idempotencyKey: string): string =>
  `evt_${createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 27)}`;

export const clientEventOf = (event: WebhookEnvelope): ClientEvent => ({ id: eventIdOf(event.idempotencyKey), ...event });

/**
 * The Companies House Streaming API's events: one JSON object per line of a long-lived response,
 * `{resource_kind, resource_uri, resource_id, data, event: {timepoint, published_at, type, fields_changed}}`.
 * `data` is the whole resource, republished whenever any field of it changes: what is news is
 * worked out by identity against what was told before (known-resources.ts), not read from here.
 * A line is read into a `StreamEvent` or refused with a reason the consumer can log and count;
 * nothing here talks to the network or to storage.
 */

/** The nine streams, as they appear in the path `https://stream.companieshouse.gov.uk/<stream>`. */
export const STREAM_NAMES = [
  'companies',
  'filings',
  'charges',
  'insolvency-cases',
  'officers',
  'persons-with-significant-control',
  'persons-with-significant-control-statements',
  'disqualified-officers',
  'company-exemptions',
] as const;

export type StreamName = (typeof STREAM_NAMES)[number];

export function isStreamName(value: string): value is StreamName {
  return (STREAM_NAMES as readonly string[]).includes(value);
}

/**
 * The resource kinds each stream carries. A kind outside its stream's list is refused rather than
 * guessed at: a new kind from the register is then counted and logged, never applied as something else.
 */
export const RESOURCE_KINDS: { readonly [S in StreamName]: readonly string[] } = {
  companies: ['company-profile'],
  filings: ['filing-history'],
  charges: ['company-charges'],
  'insolvency-cases': ['company-insolvency'],
  officers: ['company-officers'],
  // A person with significant control is "company-psc-<kind>"; a registrable beneficial owner of an
  // overseas entity is named by the resource's own kind (as Companies House's psc-data-api maps them).
  'persons-with-significant-control': [
    'company-psc-individual',
    'company-psc-corporate',
    'company-psc-legal',
    'company-psc-supersecure',
    'individual-beneficial-owner',
    'corporate-entity-beneficial-owner',
    'legal-person-beneficial-owner',
    'super-secure-beneficial-owner',
  ],
  'persons-with-significant-control-statements': ['company-psc-statement'],
  'disqualified-officers': ['disqualified-officer-natural', 'disqualified-officer-corporate'],
  'company-exemptions': ['company-exemptions'],
};

export type StreamEventType = 'changed' | 'deleted';

export interface StreamEvent {
  readonly stream: StreamName;
  readonly resourceKind: string;
  readonly resourceUri: string;
  readonly resourceId: string;
  readonly data: Record<string, unknown>;
  /** The stream's position of this event; a reader resumes from the last one applied + 1. */
  readonly timepoint: number;
  /** As the register publishes it (e.g. `2026-11-25T08:30:12`, no zone: UK time). */
  readonly publishedAt: string;
  readonly type: StreamEventType;
}

/**
 * The port through which events reach the companies table. Called with events in timepoint order;
 * it must be idempotent, since a batch is applied again after a failure or a takeover, and the
 * stream itself repeats events.
 */
export type ApplyEvents = (stream: StreamName, events: readonly StreamEvent[]) => Promise<AppliedEvents>;

/** What became of one event: it changed a profile's facts, changed none, or was not applied (no company Bureau holds, malformed, a deletion). */
export type EventOutcome = 'applied' | 'unchanged' | 'skipped';

export interface AppliedEvents {
  readonly applied: number;
  readonly unchanged: number;
  readonly skipped: number;
  /** Each event's outcome, in the order given, where the applier tells them. */
  readonly outcomes?: readonly EventOutcome[];
}

export type StreamLineRefusalReason =
  | 'malformed-json'
  | 'not-an-object'
  | 'missing-timepoint'
  | 'invalid-timepoint'
  | 'missing-resource-kind'
  | 'unknown-resource-kind'
  | 'missing-resource-uri'
  | 'missing-resource-id'
  | 'missing-data'
  | 'invalid-event-type'
  | 'missing-published-at';

export type ParsedStreamLine =
  | { readonly ok: true; readonly event: StreamEvent }
  | {
      readonly ok: false;
      readonly reason: StreamLineRefusalReason;
      /** Present whenever the line carried a valid one, so the refusal can be logged at its place. */
      readonly timepoint?: number;
      readonly detail: string;
    };

/** True for a heartbeat: the stream sends blank lines to say it is alive. */
export function isHeartbeat(line: string): boolean {
  return line.trim() === '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** A timepoint is a non-negative safe integer; the register sends it as a number, some clients as text. */
export function readTimepoint(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** One line of a stream (without its line break; not a heartbeat) as an event, or why not. */
export function parseStreamLine(stream: StreamName, line: string): ParsedStreamLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, reason: 'malformed-json', detail: (error as Error).message };
  }
  if (!isRecord(value)) return { ok: false, reason: 'not-an-object', detail: 'the line is JSON but not an object' };

  const envelope = isRecord(value.event) ? value.event : undefined;
  if (!envelope || envelope.timepoint === undefined || envelope.timepoint === null) {
    return { ok: false, reason: 'missing-timepoint', detail: 'event.timepoint is absent' };
  }
  const timepoint = readTimepoint(envelope.timepoint);
  if (timepoint === undefined) {
    return {
      ok: false,
      reason: 'invalid-timepoint',
      detail: `event.timepoint ${JSON.stringify(envelope.timepoint)} is not a whole number`,
    };
  }
  const refuse = (reason: StreamLineRefusalReason, detail: string): ParsedStreamLine => ({ ok: false, reason, timepoint, detail });

  if (!nonEmptyString(value.resource_kind)) return refuse('missing-resource-kind', 'resource_kind is absent');
  if (!RESOURCE_KINDS[stream].includes(value.resource_kind)) {
    return refuse('unknown-resource-kind', `resource_kind ${JSON.stringify(value.resource_kind)} is not one the ${stream} stream carries`);
  }
  if (!nonEmptyString(value.resource_uri)) return refuse('missing-resource-uri', 'resource_uri is absent');
  if (!nonEmptyString(value.resource_id)) return refuse('missing-resource-id', 'resource_id is absent');
  if (envelope.type !== 'changed' && envelope.type !== 'deleted') {
    return refuse('invalid-event-type', `event.type ${JSON.stringify(envelope.type)} is neither changed nor deleted`);
  }
  if (!nonEmptyString(envelope.published_at)) return refuse('missing-published-at', 'event.published_at is absent');
  // A deletion may come with no data at all: what was deleted is named by its URI.
  const data = value.data === undefined && envelope.type === 'deleted' ? {} : value.data;
  if (!isRecord(data)) return refuse('missing-data', 'data is absent or not an object');

  return {
    ok: true,
    event: {
      stream,
      resourceKind: value.resource_kind,
      resourceUri: value.resource_uri,
      resourceId: value.resource_id,
      data,
      timepoint,
      publishedAt: envelope.published_at,
      type: envelope.type,
    },
  };
}

/**
 * The company number a resource URI names (`/company/<number>/…`), upper-cased as the register
 * writes it, or undefined for a resource that belongs to no company (a disqualified officer).
 */
export function companyNumberOf(resourceUri: string): string | undefined {
  const match = /^\/company\/([A-Za-z0-9]{1,10})(?:\/|$)/.exec(resourceUri);
  return match?.[1]?.toUpperCase();
}

/**
 * `published_at` as epoch milliseconds. The register writes it without a zone; it is read as UTC,
 * which is at most an hour off in British summer time and only feeds the lag metric.
 */
export function publishedAtMillis(publishedAt: string): number | undefined {
  const zoned = /([zZ]|[+-]\d{2}:?\d{2})$/.test(publishedAt) ? publishedAt : `${publishedAt}Z`;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? undefined : ms;
}

import type { Decimal } from './decimal';

/** A name as the document wrote it and as it resolves. */
export interface QualifiedName {
  readonly namespace: string;
  readonly localName: string;
  /** prefix:localName as written, for provenance. */
  readonly written: string;
}

export interface DimensionMember {
  readonly dimension: QualifiedName;
  /** The explicit member; for a typed member, its content as text. */
  readonly member: string;
  readonly typed: boolean;
}

export interface Context {
  readonly id: string;
  readonly entityIdentifier?: string;
  readonly entityScheme?: string;
  /** ISO dates: an instant has end only; a duration has start and end. */
  readonly start?: string;
  readonly end?: string;
  readonly forever: boolean;
  /** Segment and scenario members together: either qualifies the fact away from the entity's totals. */
  readonly dimensions: readonly DimensionMember[];
}

export interface Unit {
  readonly id: string;
  /** Measures as qualified names' local parts ("GBP", "pure", "shares"); a divide lists numerator then denominator. */
  readonly measures: readonly QualifiedName[];
  readonly divide: boolean;
}

export interface Fact {
  readonly concept: QualifiedName;
  readonly contextRef: string;
  readonly unitRef?: string;
  readonly nil: boolean;
  readonly hidden: boolean;
  /** Numeric facts: the value after format, scale and sign; null when nil. */
  readonly number?: Decimal | null;
  /** Non-numeric facts: the text after format, continuations joined. */
  readonly text?: string;
}

/** What one document holds, before any figure is derived. */
export interface Instance {
  readonly kind: 'ixbrl' | 'xbrl';
  readonly contexts: ReadonlyMap<string, Context>;
  readonly units: ReadonlyMap<string, Unit>;
  readonly facts: readonly Fact[];
}

export class InstanceError extends Error {}

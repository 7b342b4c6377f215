import { createHash } from 'node:crypto';
import { addDays } from '../calendar';

/**
 * What the Streaming API has told Bureau of each resource of a company, by the resource's identity:
 * each board appointment, each person with significant control, each charge, each insolvency case.
 * The register republishes a whole resource whenever any field of it changes (a correspondence
 * address, a link, an identity verification), so a resource is news only when it says something
 * the company's memory did not hold, and only when what it says is recent: a resource Bureau had
 * never been told of, carrying a date of years ago, is a record republished, not an event.
 *
 * The memory lives on the stored profile item beside the dates of its facts (`factsAsOf`, under
 * `known.*` keys), which every writer carries whole: the API never shows it. Entries are compact
 * (`<id>=<date>/<date>`, ids of more than 16 characters hashed to 16) and each list keeps only its
 * newest entries, so a company with hundreds of officers stays a few kilobytes; an entry dropped
 * for room is protected by the recency rule when it comes again.
 */

/** A date is recent when it is no more than this many days before the event's published_at (a later date is recent too). */
export const RECENT_DAYS = 30;

export const isRecent = (date: string, asOf: string) => date >= addDays(asOf.slice(0, 10), -RECENT_DAYS);

/** The `factsAsOf` keys the memory is kept under, and how many entries each keeps. */
export const KNOWN_LISTS = {
  officers: { key: 'known.officers', max: 300 },
  psc: { key: 'known.psc', max: 200 },
  charges: { key: 'known.charges', max: 500 },
  insolvency: { key: 'known.insolvency', max: 50 },
} as const;

export type KnownListName = keyof typeof KNOWN_LISTS;

export const isKnownKey = (key: string) => key.startsWith('known.');

const SHORT_ID = /^[A-Za-z0-9_-]{1,16}$/;

/** An id as the memory keys it: short ids as they are, longer ones (appointment ids are 27 characters) hashed. */
export function compactId(id: string): string {
  return SHORT_ID.test(id) ? id : createHash('sha256').update(id).digest('base64url').slice(0, 16);
}

/** `2024-05-15` as `20240515`, and back; absent as the empty string. */
const packDate = (date: string | null) => (date ? date.replace(/-/g, '') : '');
const unpackDate = (text: string | undefined) =>
  text && /^\d{8}$/.test(text) ? `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}` : null;

/** One list of the memory, oldest told first; telling an entry again moves it to the end. */
export class KnownList {
  private readonly entries = new Map<string, string>();
  private changed = false;

  constructor(
    text: string | undefined,
    private readonly max: number,
  ) {
    for (const entry of (text ?? '').split(' ')) {
      const at = entry.indexOf('=');
      if (at > 0) this.entries.set(entry.slice(0, at), entry.slice(at + 1));
    }
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: string): void {
    if (this.entries.get(key) === value) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.changed = true;
  }

  /** Replaces the whole list: for a resource that states all its items at once (a company's insolvency cases). */
  replace(entries: readonly (readonly [string, string])[]): void {
    const next = entries.slice(-this.max);
    if (next.length === this.entries.size && next.every(([key, value]) => this.entries.get(key) === value)) return;
    this.entries.clear();
    for (const [key, value] of next) this.entries.set(key, value);
    this.changed = true;
  }

  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  get size(): number {
    return this.entries.size;
  }

  get modified(): boolean {
    return this.changed;
  }

  text(): string {
    return [...this.entries].map(([key, value]) => `${key}=${value}`).join(' ');
  }
}

/** An appointment or a person with significant control: when it began and when it ended, as told. */
export interface TermTold {
  /** The resource's id: the appointment id, the PSC notification id. */
  readonly id: string;
  readonly from: string | null;
  readonly to: string | null;
}

export interface TermNews {
  /** The start, when it is news: an appointment or a person Bureau had not been told of, begun recently. */
  readonly began?: string;
  /** The end, when it is news: newly present on a term Bureau knew as running, or recent on one it had not been told of. */
  readonly ended?: string;
}

/** What a term resource newly says, remembering it. A republication of what the list holds says nothing. */
export function tellTerm(list: KnownList, told: TermTold, asOf: string): TermNews {
  const key = compactId(told.id);
  const before = list.get(key);
  list.set(key, `${packDate(told.from)}/${packDate(told.to)}`);
  if (before === undefined) {
    return {
      ...(told.from && isRecent(told.from, asOf) ? { began: told.from } : {}),
      ...(told.to && isRecent(told.to, asOf) ? { ended: told.to } : {}),
    };
  }
  const endedBefore = unpackDate(before.split('/')[1]);
  return told.to && !endedBefore ? { ended: told.to } : {};
}

/** An insolvency case as the company's insolvency resource states it. */
export interface CaseTold {
  /** The case number, or its type and start where the register gives none. */
  readonly key: string;
  readonly type: string;
  /** The first of its dates that opens a case (wound up, petitioned, administration started, …). */
  readonly startedOn: string | null;
  /** The first of its dates that closes one (concluded, dissolved, ended, discharged, …); null while open. */
  readonly endedOn: string | null;
}

/**
 * The cases a company's insolvency resource newly opens, remembering the list as stated: a case is
 * news when Bureau had not been told of it, it is open, and it began recently. A case that ends
 * is not news: it settles what its opening raised.
 */
export function tellCases(list: KnownList, cases: readonly CaseTold[], asOf: string): CaseTold[] {
  const opened = cases.filter(
    (found) => !list.has(compactId(found.key)) && found.endedOn === null && found.startedOn !== null && isRecent(found.startedOn, asOf),
  );
  list.replace(
    cases.map((found) => [compactId(found.key), `${found.type}/${packDate(found.startedOn)}/${found.endedOn === null ? 'o' : 'e'}`]),
  );
  return opened;
}

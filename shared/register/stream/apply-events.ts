import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { contentHashOf, type FactsAsOf, indexedNamesOf } from '../../companies/company-store';
import type { LiveFeed, ProfileContent } from '../../companies/profile';
import { indexedEntryOf, replaceProfile } from '../../companies/profile-transaction';
import { withRiskHistory } from '../../companies/risk-history';
import { everyIndexedWord } from '../../companies/search-index';
import { keyOf, profileOf, readStoredProfile, type StoredProfile } from '../../companies/stored-profile';
import { VocabularyUpkeep, wordChange } from '../../companies/vocabulary-upkeep';
import { batchGet } from '../../storage/batch';
import { companiesHouseFacts } from '../companies-house-bulk';
import { ColumnRow, derivedAsOf, type StoredFactsState } from '../facts-as-of';
import { registerProfile } from '../register-profile';
import { RowError } from '../snapshot-facts';
import { type EventFacts, eventFacts } from './event-facts';
import { type Folded, foldEvents } from './fold-events';
import { isKnownKey } from './known-resources';
import type { ApplyEvents, EventOutcome, StreamEvent, StreamName } from './stream-events';

export interface EventApplierOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly companiesTable: string;
  readonly clock?: () => Date;
  /** Companies written at once. */
  readonly concurrency?: number;
  /** Tries of one company's write when other writers keep getting there first. */
  readonly maxAttempts?: number;
  /** Which feed the events come from, named in the provenance of what they change. Default the Companies House Streaming API. */
  readonly feed?: LiveFeed;
  /** Told of each event skipped for being malformed, so it can be logged with its place. */
  readonly onSkipped?: (event: StreamEvent, reason: string, detail?: string) => void;
}

/** Stored profile items as the applier reads them: the content and the dates of its facts. */
type StoredItem = StoredProfile & StoredFactsState;

export { foldEvents } from './fold-events';

/** What of the memory of resources (`known.*`) the fold changed. */
function memoryChanged(stored: StoredFactsState, folded: Folded): boolean {
  for (const key in folded.factsAsOf) if (isKnownKey(key) && folded.factsAsOf[key] !== stored.factsAsOf?.[key]) return true;
  return false;
}

/**
 * The profile the folded facts give, by the bulk import's own rules, as of the latest event that
 * changed a fact (never before what the stored blocks were derived as of). Undefined when the facts
 * do not make a company (a profile Bureau holds from elsewhere, told of by anything but its own
 * company-profile event).
 */
function profileOfFacts(stored: StoredItem | undefined, companyNumber: string, folded: Folded, feed: LiveFeed): ProfileContent | undefined {
  const date = (folded.latest ?? '').slice(0, 10);
  const derived = derivedAsOf(stored);
  const asOf = derived && derived > date ? derived : date;
  try {
    const facts = { ...companiesHouseFacts(new ColumnRow({ ...folded.columns, CompanyNumber: companyNumber })), via: feed };
    return registerProfile(facts, asOf, stored && profileOf(stored));
  } catch (error) {
    if (error instanceof RowError) return undefined;
    throw error;
  }
}

type Outcome = EventOutcome;

/** What a company-profile event must state for Bureau to hold a company it did not: the facts every block starts from. */
const INCORPORATION_COLUMNS = ['CompanyName', 'CompanyStatus', 'CompanyCategory', 'IncorporationDate'] as const;

/** True when one of the events states a whole company: one Bureau does not hold becomes a register profile from it. */
const statesCompany = (events: readonly EventFacts[]) =>
  events.some((event) => INCORPORATION_COLUMNS.every((column) => Boolean(event.columns[column])));

/** Another writer kept getting to the company first: a transient condition, tried again with the batch. */
export class WritesLostError extends Error {
  constructor(companyNumber: string, attempts: number) {
    super(`GB ${companyNumber}: ${attempts} writes lost to other writers in a row`);
    this.name = 'WritesLostError';
  }
}

/**
 * The port the stream consumer applies its batches through. A batch costs one BatchGetItem of the
 * companies it names, then one version-guarded transaction per company whose facts changed. A
 * company Bureau does not hold (a new incorporation) becomes a register profile, with its name-index
 * items, as an import creates one, when a company-profile event states its name, status, type and
 * incorporation date; other events for companies Bureau does not hold, and events that change
 * nothing, cost no write, except that a
 * resource the company's memory did not hold yet is remembered by one update that takes no new
 * version (known-resources.ts), so nothing is announced for it. A write lost to
 * another writer (another consumer, an import) reads the company again and works its events out
 * afresh, so neither loses the other's facts.
 */
export function createEventApplier(options: EventApplierOptions): ApplyEvents {
  const { doc, companiesTable } = options;
  const clock = options.clock ?? (() => new Date());
  const maxAttempts = options.maxAttempts ?? 8;
  const feed = options.feed ?? 'companies-house-streaming-api';
  const limit = pLimit(options.concurrency ?? 16);
  const vocabulary = new VocabularyUpkeep(doc, companiesTable);

  /**
   * Keeps what the events told of the company's resources where they changed none of its facts:
   * the memory alone, behind the version read and without a new one, so nothing is announced.
   */
  async function remember(stored: StoredItem, folded: Folded): Promise<boolean> {
    try {
      await doc.send(
        new UpdateCommand({
          TableName: companiesTable,
          Key: keyOf(stored),
          UpdateExpression: 'SET factsAsOf = :facts',
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':facts': folded.factsAsOf, ':expected': stored.version },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  async function writeCompany(companyNumber: string, events: readonly EventFacts[], first: StoredItem | undefined): Promise<Outcome[]> {
    let stored: StoredItem | undefined = first;
    for (let attempt = 1; ; attempt++) {
      if (!stored && !statesCompany(events)) return events.map(() => 'skipped');
      const folded = foldEvents(stored, events);
      const writtenAt = clock().toISOString();
      const derived = folded.changed.includes(true) ? profileOfFacts(stored, companyNumber, folded, feed) : undefined;
      const content = derived && withRiskHistory(derived, stored, writtenAt);
      if (folded.changed.includes(true) && !content) return events.map(() => 'skipped');
      if (!stored && !content) return events.map(() => 'skipped');
      const contentHash = content && contentHashOf(content);
      if (stored && (!content || contentHash === stored.contentHash)) {
        // Only a register profile keeps a memory: a profile held from elsewhere becomes one by its own company-profile event.
        const keep = stored.dataSource === 'register' && memoryChanged(stored, folded);
        if (!keep || (await remember(stored, folded))) return events.map(() => 'unchanged');
        if (attempt >= maxAttempts) throw new WritesLostError(companyNumber, maxAttempts);
        stored = (await readStoredProfile(doc, companiesTable, 'GB', companyNumber, true)) as StoredItem | undefined;
        continue;
      }
      if (!content) return events.map(() => 'unchanged');
      const indexed = indexedNamesOf(content);
      // With nothing stored, the write creates the company, guarded on its absence, as an import does.
      const written = await replaceProfile(doc, companiesTable, content, stored, {
        indexed,
        contentHash: contentHash as string,
        updatedAt: writtenAt,
        ...(stored?.registerSnapshot ? { registerSnapshot: stored.registerSnapshot } : {}),
        factsAsOf: folded.factsAsOf as FactsAsOf,
      });
      if (written) {
        if (content.name !== stored?.name) {
          const before = stored ? everyIndexedWord(indexedEntryOf(stored)) : [];
          await vocabulary.update([wordChange('GB', before, everyIndexedWord(indexed))]);
        }
        return folded.changed.map((moved) => (moved ? 'applied' : 'unchanged'));
      }
      if (attempt >= maxAttempts) throw new WritesLostError(companyNumber, maxAttempts);
      stored = (await readStoredProfile(doc, companiesTable, 'GB', companyNumber, true)) as StoredItem | undefined;
    }
  }

  return async (_stream: StreamName, events: readonly StreamEvent[]) => {
    const outcomes: Outcome[] = new Array(events.length);
    const byCompany = new Map<string, { positions: number[]; facts: EventFacts[] }>();
    for (const [position, event] of events.entries()) {
      const found = eventFacts(event);
      if (!found.ok) {
        outcomes[position] = 'skipped';
        if (found.reason !== 'no-facts') options.onSkipped?.(event, found.reason, found.detail);
        continue;
      }
      const entry = byCompany.get(found.facts.companyNumber) ?? { positions: [], facts: [] };
      entry.positions.push(position);
      entry.facts.push(found.facts);
      byCompany.set(found.facts.companyNumber, entry);
    }
    const items =
      byCompany.size === 0
        ? []
        : await batchGet<StoredItem>(
            doc,
            companiesTable,
            [...byCompany.keys()].map((companyNumber) => keyOf({ jurisdiction: 'GB', companyNumber })),
          );
    const held = new Map(items.map((item) => [item.companyNumber, item]));
    await Promise.all(
      [...byCompany].map(([companyNumber, { positions, facts }]) => {
        const stored = held.get(companyNumber);
        if (!stored && !statesCompany(facts)) {
          for (const position of positions) outcomes[position] = 'skipped';
          return undefined;
        }
        return limit(async () => {
          const results = await writeCompany(companyNumber, facts, stored);
          for (const [index, position] of positions.entries()) outcomes[position] = results[index] ?? 'unchanged';
        });
      }),
    );
    const counts = { applied: 0, unchanged: 0, skipped: 0 };
    for (const outcome of outcomes) counts[outcome]++;
    return { ...counts, outcomes };
  };
}

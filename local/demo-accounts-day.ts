import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { demoAccountsCompanyOf, writeDemoAccountsZip } from '../demo/accounts-filings';
import { readAccountsZip } from '../shared/accounts';
import { accountsFeedOf, importAccountFilings } from '../shared/accounts/import/import-filings';
import { DynamoCompanyStore } from '../shared/companies/dynamo-company-store';
import type { CompanyProfile } from '../shared/companies/profile';
import { dayOf } from './register-calendar';

/**
 * The local runtime's stand-in for the Accounts Data Product: when the local register streams file
 * a company's accounts, the accounts themselves follow, as the register publishes them a day or so
 * after the filing. Every round writes a demo day's zip of the accounts the profiles now show and
 * imports it through the same import as a real file; its name labels every figure
 * `bureau-local-accounts`. A filing told of but not yet applied by the stream consumers waits for the
 * next round. What is pending is kept in a file beside the zips, written as it changes, so a filing
 told of just before a crash (kill -9 included) is filed after the next start: no scan of the table.
 */

export const ROUND_MS = 15_000;
/** Companies in one zip: yazl holds the archive in memory (decision 13), so a long catch-up goes in parts. */
const COMPANIES_PER_FILE = 500;
/** Rounds a filing may wait for its profile to show it before it is left to the next start's catch-up. */
const ROUNDS_WAITING = 8;
/** Keys one BatchGetItem request reads. */
const READ_BATCH = 100;

export interface DemoAccountsDayOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly companiesTable: string;
  /** Where each round's zip is written (the runtime's data folder, accounts/). */
  readonly folder: string;
  readonly log: (line: string) => void;
  readonly logError: (message: string, error: unknown) => void;
  /** Default ROUND_MS. */
  readonly roundMs?: number;
  readonly now?: () => number;
}

/** What one round did. */
export interface DemoAccountsRound {
  /** Companies waiting when the round began. */
  readonly pending: number;
  /** Companies whose accounts went into the round's zips. */
  readonly filed: number;
  /** Profiles whose figures changed. */
  readonly updated: number;
  /** Companies that already had these figures, or were refused by the demo writer or the import. */
  readonly dropped: number;
  /** Companies whose profiles do not show the filing yet: tried again next round. */
  readonly waiting: number;
  /** Companies that waited ROUNDS_WAITING rounds in vain. */
  readonly gaveUp: number;
  /** The zip the round wrote last. */
  readonly archive?: string;
}

/** What the catch-up at start found: filings a previous run was told of and did not file. */
export interface DemoAccountsCatchUp {
  readonly found: number;
}

/** The pending filings, by company number, as the file beside the zips keeps them. */
export const PENDING_FILE = 'pending.json';

export interface DemoAccountsDay {
  /** The local register filed accounts for the company, made up to this date: filed at the next round. */
  noticeFiled(companyNumber: string, madeUpTo?: string): void;
  /** Settles once the filings pending at the last stop are read back (undefined when they could not be). */
  readonly caughtUp: Promise<DemoAccountsCatchUp | undefined>;
  /** Runs a round now, after any round in progress. */
  runRound(): Promise<DemoAccountsRound>;
  /** Stops the timer and waits for the round in progress. */
  stop(): Promise<void>;
}

interface Pending {
  /** The made-up date the register told of; unknown, any date the profile shows will do. */
  madeUpTo?: string;
  rounds: number;
}

type Verdict = 'file' | 'wait' | 'drop';

/** Whether the profile shows the filing told of and lacks its figures. */
function verdictOf(profile: CompanyProfile | undefined, pending: Pending): Verdict {
  if (!profile) return 'wait';
  if (profile.jurisdiction !== 'GB' || profile.dataSource !== 'register') return 'drop';
  const shown = profile.filingBehaviour.lastAccountsMadeUpTo;
  if (!shown || (pending.madeUpTo && shown < pending.madeUpTo)) return 'wait';
  const held = profile.overview.financials?.periodEnd;
  return held && held >= shown ? 'drop' : 'file';
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));

/**
 * Starts the job: a round every `roundMs` while anything is pending, and beside them, once, the
 * catch-up, whose finds the rounds file as its scan reads on. One line is logged for each round
 * that had work.
 */
export function startDemoAccountsDay(options: DemoAccountsDayOptions): DemoAccountsDay {
  const now = options.now ?? Date.now;
  const store = new DynamoCompanyStore(options.doc, options.companiesTable);
  const pending = new Map<string, Pending>();
  /** Filings that waited in vain this run: kept in the file for the next start, not tried again now. */
  const deferred = new Map<string, string | undefined>();
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // Rounds run one after another, never side by side: a round rewrites the day's zip.
  let queue: Promise<unknown> = Promise.resolve();

  const pendingFile = join(options.folder, PENDING_FILE);
  // Written whole and renamed into place, so a crash mid-write leaves the previous list, never half of one.
  const persist = () => {
    mkdirSync(options.folder, { recursive: true });
    const list: Record<string, string | null> = {};
    for (const [companyNumber, madeUpTo] of deferred) list[companyNumber] = madeUpTo ?? null;
    for (const [companyNumber, entry] of pending) list[companyNumber] = entry.madeUpTo ?? null;
    writeFileSync(`${pendingFile}.next`, JSON.stringify(list));
    renameSync(`${pendingFile}.next`, pendingFile);
  };

  const record = (companyNumber: string, madeUpTo?: string) => {
    deferred.delete(companyNumber);
    const held = pending.get(companyNumber);
    const later = held?.madeUpTo && madeUpTo && held.madeUpTo > madeUpTo ? held.madeUpTo : madeUpTo;
    pending.set(companyNumber, { ...(later ? { madeUpTo: later } : {}), rounds: 0 });
  };
  const notice = (companyNumber: string, madeUpTo?: string) => {
    record(companyNumber, madeUpTo);
    persist();
  };

  const round = async (): Promise<DemoAccountsRound> => {
    const taken = [...pending.entries()];
    const counts = { pending: taken.length, filed: 0, updated: 0, dropped: 0, waiting: 0, gaveUp: 0 };
    let archive: string | undefined;
    const today = dayOf(now());
    for (const part of chunks(taken, COMPANIES_PER_FILE)) {
      if (stopping.signal.aborted) break;
      const profiles = new Map<string, CompanyProfile>();
      for (const keys of chunks(part, READ_BATCH)) {
        const read = await store.getMany(keys.map(([companyNumber]) => ({ jurisdiction: 'GB' as const, companyNumber })));
        for (const [key, profile] of read) profiles.set(key, profile);
      }
      const toFile: CompanyProfile[] = [];
      const filing: Array<readonly [string, Pending]> = [];
      // Told again meanwhile: the newer notice stays.
      const settle = (companyNumber: string, entry: Pending) => {
        if (pending.get(companyNumber) === entry) pending.delete(companyNumber);
      };
      for (const [companyNumber, entry] of part) {
        const profile = profiles.get(`GB#${companyNumber}`);
        const verdict = verdictOf(profile, entry);
        if (verdict === 'wait') {
          entry.rounds += 1;
          if (entry.rounds < ROUNDS_WAITING) {
            counts.waiting += 1;
            continue;
          }
          counts.gaveUp += 1;
          deferred.set(companyNumber, entry.madeUpTo);
        } else if (verdict === 'drop') counts.dropped += 1;
        else {
          // Settled once imported: a round that fails leaves it pending.
          toFile.push(profile as CompanyProfile);
          filing.push([companyNumber, entry]);
          continue;
        }
        settle(companyNumber, entry);
      }
      if (toFile.length === 0) continue;
      const companies = toFile.flatMap((profile) => demoAccountsCompanyOf(profile) ?? []);
      const written = await writeDemoAccountsZip(options.folder, companies, today);
      archive = basename(written.path);
      const report = await importAccountFilings(readAccountsZip(written.path), store, {
        archive,
        feed: accountsFeedOf(archive),
        signal: stopping.signal,
      });
      // Cut short by a stop: all of this part stays pending, and the next start files it again (what was stored is then unchanged).
      if (stopping.signal.aborted) break;
      counts.filed += written.entries.length;
      counts.updated += report.companiesUpdated;
      counts.dropped += written.skipped.length + report.unchanged + report.notHeld + report.rejected;
      for (const [companyNumber, entry] of filing) settle(companyNumber, entry);
    }
    persist();
    const outcome: DemoAccountsRound = { ...counts, ...(archive ? { archive } : {}) };
    if (outcome.pending > 0) options.log(roundLine(outcome));
    return outcome;
  };

  const runRound = () => {
    const next = queue.then(round);
    queue = next.catch(() => {});
    return next;
  };

  const schedule = () => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => {
      const work = pending.size > 0 ? runRound() : Promise.resolve();
      work.catch((error: unknown) => options.logError('Filing demo accounts failed; the next round tries again', error)).finally(schedule);
    }, options.roundMs ?? ROUND_MS);
    timer.unref();
  };

  const caughtUp = (async (): Promise<DemoAccountsCatchUp | undefined> => {
    try {
      if (!existsSync(pendingFile)) return { found: 0 };
      const list = JSON.parse(readFileSync(pendingFile, 'utf8')) as Record<string, string | null>;
      for (const [companyNumber, madeUpTo] of Object.entries(list)) record(companyNumber, madeUpTo ?? undefined);
      const found = Object.keys(list).length;
      if (found > 0) options.log(`Demo accounts: ${found} filing${found === 1 ? '' : 's'} pending at the last stop; filing them.`);
      return { found };
    } catch (error) {
      options.logError('Reading the demo accounts pending at the last stop failed; they are filed at their next filing', error);
      return undefined;
    }
  })();
  schedule();

  return {
    noticeFiled: notice,
    caughtUp,
    runRound,
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await caughtUp;
      await queue;
    },
  };
}

function roundLine(round: DemoAccountsRound): string {
  const parts = [
    `${round.filed} filed${round.archive ? ` in ${round.archive}` : ''}`,
    `${round.updated} profiles updated`,
    ...(round.dropped > 0 ? [`${round.dropped} with nothing new`] : []),
    ...(round.waiting > 0 ? [`${round.waiting} waiting for the stream`] : []),
    ...(round.gaveUp > 0 ? [`${round.gaveUp} left to the next start`] : []),
  ];
  return `Demo accounts: ${parts.join(', ')}.`;
}

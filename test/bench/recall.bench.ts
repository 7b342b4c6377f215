import type { Principal } from '../../shared/auth/tokens';
import { DynamoNameIndex } from '../../shared/companies/dynamo-name-index';
import { foldName, normalizeName } from '../../shared/companies/names';
import { createSearchEndpoint } from '../../shared/companies/search-endpoint';
import { isCorrectable } from '../../shared/companies/spelling';
import { companiesTable } from '../../shared/storage/tables';
import { type CompanyRef, seededDataset, spread } from './support/companies';
import type { BenchContext } from './support/context';
import { benchRequest } from './support/http';
import { renderTable } from './support/table';
import { misspelt, seededRandom, TYPO_KINDS, type TypoKind, withTypo } from './support/typos';

export const name = 'Search recall on the real GB sample';

const TOP = 10;
/** Searches in flight: recall is about answers, not latency, so the run may overlap them. */
const CONCURRENCY = 4;
const principal: Principal = { clientId: 'recall-bench', tokenId: 'recall-bench', expiresAt: Number.MAX_SAFE_INTEGER };

interface Tally {
  queries: number;
  hits: number;
  /** Refused by the endpoint (400): too short, or nothing left after normalization. */
  refused: number;
  /** The first few misses, to show what search got wrong. */
  misses: string[];
}

const MISSES_SHOWN = 5;
const newTally = (): Tally => ({ queries: 0, hits: 0, refused: 0, misses: [] });

const firstTwoWords = (name: string) => name.trim().split(/\s+/).slice(0, 2).join(' ');

async function forEachConcurrently<T>(items: readonly T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++] as T);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Which words of a name, as registered, a typo may fall in; the legal form ends the folded words. */
type Eligible = (word: string, inLegalForm: boolean) => boolean;
const TYPO_PLACES: ReadonlyArray<readonly [string, Eligible]> = [
  ['a word of 5+ letters or the legal form', (word, inLegalForm) => inLegalForm || isCorrectable(word)],
  ['the legal form', (_, inLegalForm) => inLegalForm],
  ['any word', () => true],
];

/** The name as registered, legal form and all, with one typo of the kind in one eligible word. */
function registeredNameWithTypo(name: string, eligible: Eligible, kind: TypoKind, random: () => number): string | undefined {
  const words = foldName(name).split(' ');
  const legalFormStart = normalizeName(name).split(' ').length;
  const candidates = words.flatMap((word, at) => (/^[a-z]{2,}$/.test(word) && eligible(word, at >= legalFormStart) ? [at] : []));
  if (candidates.length === 0) return undefined;
  const at = candidates[Math.floor(random() * candidates.length)] as number;
  const word = words[at] as string;
  // Two letters have no inner pair to swap: the typo changes the second instead.
  const typo = withTypo(word, word.length === 2 && kind === 'swapped' ? 'changed' : kind, random);
  return words.map((original, position) => (position === at ? typo : original)).join(' ');
}

const percent = (part: number, whole: number) => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`);

export async function run(context: BenchContext): Promise<void> {
  const dataset = await seededDataset(context);
  const { doc, names } = dataset.tables;
  const endpoint = createSearchEndpoint({ index: new DynamoNameIndex(doc, names[companiesTable.id] as string) });
  const gb = dataset.companies.filter((company) => company.jurisdiction === 'GB' && company.normalizedName !== '');
  const sample = context.scale === 'full' ? gb : spread(gb, 1000);
  const sharing = new Map<string, number>();
  for (const company of gb) sharing.set(company.normalizedName, (sharing.get(company.normalizedName) ?? 0) + 1);

  let fuzzyAboveExact = 0;
  /** Company numbers of the first page, in rank order; undefined when the endpoint refused the query. */
  const search = async (company: CompanyRef, q: string): Promise<string[] | undefined> => {
    const response = await endpoint(benchRequest({ path: '/v1/search', query: { q, jurisdiction: 'GB', limit: String(TOP) } }), principal);
    if (response.status === 400) return undefined;
    if (response.status !== 200) throw new Error(`search for ${company.companyNumber} answered ${response.status}`);
    const items = (response.body as { items: { companyNumber: string; match: { type: string } }[] }).items;
    // A corrected match above one as typed would be a false positive outranking the real answer.
    const firstFuzzy = items.findIndex((item) => item.match.type === 'fuzzy');
    if (firstFuzzy >= 0 && items.slice(firstFuzzy).some((item) => item.match.type !== 'fuzzy')) fuzzyAboveExact++;
    return items.map((item) => item.companyNumber);
  };

  const exact = newTally();
  const exactUnique = newTally();
  const twoWords = newTally();
  const typos = new Map(TYPO_KINDS.map((kind) => [kind, newTally()]));
  const registeredTypos = new Map(TYPO_PLACES.map(([place]) => [place, newTally()]));
  const random = seededRandom(2026);
  const registeredRandom = seededRandom(2027);
  const count = (tally: Tally, company: CompanyRef, q: string, ranked: string[] | undefined, hit: (ranked: string[]) => boolean) => {
    if (ranked === undefined) tally.refused++;
    else {
      tally.queries++;
      if (hit(ranked)) tally.hits++;
      else if (tally.misses.length < MISSES_SHOWN)
        tally.misses.push(`"${q}" for ${company.companyNumber} ${company.name}: got ${ranked.slice(0, 3).join(', ') || 'nothing'}`);
    }
  };

  context.log(`searching ${sample.length.toLocaleString('en-GB')} companies six times each…`);
  await forEachConcurrently(sample, CONCURRENCY, async (company) => {
    const byName = await search(company, company.name);
    const isFirst = (ranked: string[]) => ranked[0] === company.companyNumber;
    count(exact, company, company.name, byName, isFirst);
    if (sharing.get(company.normalizedName) === 1) count(exactUnique, company, company.name, byName, isFirst);
    const twoWordQuery = firstTwoWords(company.name);
    count(twoWords, company, twoWordQuery, await search(company, twoWordQuery), (ranked) => ranked.includes(company.companyNumber));
    const kind = TYPO_KINDS[sample.indexOf(company) % TYPO_KINDS.length] as TypoKind;
    const typo = misspelt(company.normalizedName, kind, random);
    if (typo !== undefined) {
      count(typos.get(kind) as Tally, company, typo, await search(company, typo), (ranked) => ranked.includes(company.companyNumber));
    }
    for (const [place, eligible] of TYPO_PLACES) {
      const q = registeredNameWithTypo(company.name, eligible, kind, registeredRandom);
      if (q === undefined) continue;
      count(registeredTypos.get(place) as Tally, company, q, await search(company, q), (ranked) => ranked.includes(company.companyNumber));
    }
  });
  const allTypos = newTally();
  for (const tally of typos.values()) {
    allTypos.queries += tally.queries;
    allTypos.hits += tally.hits;
    allTypos.refused += tally.refused;
  }

  const row = (label: string, tally: Tally) => [
    label,
    String(tally.queries),
    String(tally.hits),
    percent(tally.hits, tally.queries),
    String(tally.refused),
  ];
  context.report(
    renderTable(
      `Recall on the real GB sample: ${sample.length.toLocaleString('en-GB')} of ${gb.length.toLocaleString('en-GB')} companies, among ${dataset.companies.length.toLocaleString('en-GB')} loaded`,
      ['', 'queries', 'hits', 'recall', 'refused (400)'],
      [
        row('recall@1: exact name', exact),
        row('recall@1: exact name, name unique in sample', exactUnique),
        row(`recall@${TOP}: first two words`, twoWords),
        ...TYPO_KINDS.map((kind) => row(`recall@${TOP}: one word with a letter ${kind}`, typos.get(kind) as Tally)),
        row(`recall@${TOP}: one typo, all kinds`, allTypos),
        ...TYPO_PLACES.map(([place]) => row(`recall@${TOP}: registered name, one typo in ${place}`, registeredTypos.get(place) as Tally)),
        [
          'corrected match ranked above one as typed',
          String(exact.queries + twoWords.queries + allTypos.queries),
          String(fuzzyAboveExact),
          '',
          '',
        ],
      ],
    ),
  );
  for (const [label, tally] of [
    ['exact name', exact],
    ['first two words', twoWords],
    ...TYPO_KINDS.map((kind) => [`letter ${kind}`, typos.get(kind) as Tally] as const),
    ...TYPO_PLACES.map(([place]) => [`typo in ${place}`, registeredTypos.get(place) as Tally] as const),
  ] as const) {
    for (const miss of tally.misses) context.log(`missed (${label}): ${miss}`);
  }
}

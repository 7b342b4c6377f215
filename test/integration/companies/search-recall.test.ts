import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSearchExportProfiles } from '../../../demo/search-export';
import { foldName, normalizeName } from '../../../shared/companies/names';
import type { ProfileContent } from '../../../shared/companies/profile';
import { searchCompanies } from '../../../shared/companies/search';
import { isCorrectable } from '../../../shared/companies/spelling';
import { seededRandom, TYPO_KINDS, withTypo } from '../../bench/support/typos';
import { MemoryNameIndex } from '../../support/memory-name-index';

/**
 * Recall with one typo on real names (data/gb-companies-2024-01.csv, Companies House, Open
 * Government Licence v3.0): the name as registered, legal form included, with one letter dropped,
 * added, changed or swapped in one word, must find the company in the top 10. Searched over the
 * whole file in the in-memory index, so the typo competes with every other name.
 */
const SAMPLE = fileURLToPath(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url));
const SAMPLE_SIZE = 500;
const TOP = 10;

let profiles: ProfileContent[];
let index: MemoryNameIndex;

beforeAll(async () => {
  profiles = [];
  for await (const record of readSearchExportProfiles(createReadStream(SAMPLE))) if (record.profile) profiles.push(record.profile);
  index = new MemoryNameIndex(profiles);
});

/** Which words of a name, as registered, a typo may fall in; the legal form ends the folded words. */
type Eligible = (word: string, inLegalForm: boolean) => boolean;

async function recall(eligible: Eligible): Promise<{ rate: number; queries: number; misses: string[] }> {
  const random = seededRandom(2026);
  const step = Math.floor(profiles.length / SAMPLE_SIZE);
  let queries = 0;
  let hits = 0;
  const misses: string[] = [];
  for (let i = 0; i < SAMPLE_SIZE; i++) {
    const profile = profiles[i * step] as ProfileContent;
    const words = foldName(profile.name).split(' ');
    const legalFormStart = normalizeName(profile.name).split(' ').length;
    const candidates = words.flatMap((word, at) => (/^[a-z]{2,}$/.test(word) && eligible(word, at >= legalFormStart) ? [at] : []));
    if (candidates.length === 0) continue;
    const at = candidates[Math.floor(random() * candidates.length)] as number;
    const word = words[at] as string;
    const kind = TYPO_KINDS[i % TYPO_KINDS.length] ?? 'changed';
    // Two letters have no inner pair to swap: the typo changes the second instead.
    const typo = withTypo(word, word.length === 2 && kind === 'swapped' ? 'changed' : kind, random);
    const q = words.map((original, position) => (position === at ? typo : original)).join(' ');
    const page = await searchCompanies(index, { q, jurisdiction: 'GB', limit: TOP });
    queries++;
    if (page.items.some((item) => item.companyNumber === profile.companyNumber)) hits++;
    else misses.push(`${q} → ${profile.companyNumber} ${profile.name}`);
  }
  return { rate: hits / queries, queries, misses };
}

const report = (label: string, { rate, queries, misses }: Awaited<ReturnType<typeof recall>>) =>
  console.info(`${label}: recall@${TOP} ${(100 * rate).toFixed(1)}% of ${queries}; missed: ${misses.slice(0, 5).join('; ')}`);

describe('one typo in a real name', () => {
  it(`finds ≥ 98 % of companies in the top ${TOP} with a typo in a word of five letters or more, or in the legal form`, async () => {
    const result = await recall((word, inLegalForm) => inLegalForm || isCorrectable(word));

    report('a word of 5+ letters or the legal form', result);
    expect(result.queries).toBeGreaterThan(480);
    expect(result.rate).toBeGreaterThanOrEqual(0.98);
  });

  it(`finds ≥ 98 % of companies in the top ${TOP} with a typo in the legal form`, async () => {
    const result = await recall((_, inLegalForm) => inLegalForm);

    report('the legal form', result);
    expect(result.queries).toBeGreaterThan(480);
    expect(result.rate).toBeGreaterThanOrEqual(0.98);
  });

  it(`finds ≥ 95 % of companies in the top ${TOP} with a typo in any word, however short`, async () => {
    const result = await recall(() => true);

    report('any word', result);
    expect(result.rate).toBeGreaterThanOrEqual(0.95);
  });
});

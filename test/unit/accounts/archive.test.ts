import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { type FilingOutcome, readAccountsFolder, readAccountsZip } from '../../../shared/accounts';
import { ANOMALIES, FILINGS } from './support';

const BOMB = 'Prod223_9999_01234567_20241231.html';
const HUGE = 'Prod223_9999_07654321_20241231.html';
const bounds = { maxEntryBytes: 1_200_000, maxExpansionRatio: 100 };

async function collect(outcomes: AsyncIterable<FilingOutcome>): Promise<FilingOutcome[]> {
  const all: FilingOutcome[] = [];
  for await (const outcome of outcomes) all.push(outcome);
  return all;
}

const nameOf = (outcome: FilingOutcome) => (outcome.ok ? outcome.filing.entryName : outcome.entryName);

describe('reading an Accounts Data Product zip', () => {
  let workDir: string;
  let zipPath: string;
  const real = readdirSync(FILINGS).sort();

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'accounts-zip-'));
    zipPath = join(workDir, 'Accounts_Bulk_Data-2024-12-31.zip');
    const zip = new yazl.ZipFile();
    // A bomb first, under the size bound: 800 kB of spaces deflate to about a kilobyte.
    zip.addBuffer(Buffer.alloc(800_000, ' '), BOMB);
    for (const name of real.slice(0, 8)) zip.addBuffer(readFileSync(join(FILINGS, name)), name);
    // Random text barely deflates: over the size bound without being a bomb.
    zip.addBuffer(Buffer.from(randomBytes(975_000).toString('base64')), HUGE);
    zip.addBuffer(readFileSync(join(ANOMALIES, 'Prod224_0088_11426842_20200630.xml')), 'Prod224_0088_11426842_20200630.xml');
    zip.addBuffer(Buffer.from('nested'), 'Prod223_3951_15052776_20240831_CIC.zip');
    zip.addBuffer(Buffer.from('metadata'), '__MACOSX/._Prod223_3951_00225951_20241031.html');
    for (const name of real.slice(8)) zip.addBuffer(readFileSync(join(FILINGS, name)), name);
    await new Promise<void>((resolve, reject) => {
      zip.outputStream.pipe(createWriteStream(zipPath)).on('close', resolve).on('error', reject);
      zip.end();
    });
  });

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('reads every real filing, in the archive order, past the entries it refuses', async () => {
    const outcomes = await collect(readAccountsZip(zipPath, bounds));
    expect(outcomes.map(nameOf)).toEqual([
      BOMB,
      ...real.slice(0, 8),
      HUGE,
      'Prod224_0088_11426842_20200630.xml',
      'Prod223_3951_15052776_20240831_CIC.zip',
      '__MACOSX/._Prod223_3951_00225951_20241031.html',
      ...real.slice(8),
    ]);
    const read = outcomes.filter((outcome) => outcome.ok);
    expect(read.map(nameOf)).toEqual(real);
  });

  it('refuses an entry that inflates past the expansion bound, by name and reason, without inflating it', async () => {
    const [bomb] = await collect(readAccountsZip(zipPath, bounds));
    expect(bomb).toMatchObject({ ok: false, entryName: BOMB });
    expect(!bomb?.ok && bomb?.reason).toMatch(/^the entry inflates \d+ times \(\d+ to 800000 bytes\), over the bound of 100$/);
  });

  it('refuses an entry over the size bound and those that are not filings, each with its reason', async () => {
    const refused = (await collect(readAccountsZip(zipPath, bounds))).filter((outcome) => !outcome.ok);
    expect(refused.map((outcome) => [nameOf(outcome), !outcome.ok && outcome.reason])).toEqual([
      [BOMB, expect.stringContaining('over the bound of 100')],
      [HUGE, 'the entry is 1300000 bytes, over the bound of 1200000 bytes on one entry'],
      ['Prod224_0088_11426842_20200630.xml', 'the content is neither XHTML nor XML (it does not start with markup)'],
      [
        'Prod223_3951_15052776_20240831_CIC.zip',
        'the entry is an archive inside the archive (a CIC or UKSEF package), which this reader does not open',
      ],
      ['__MACOSX/._Prod223_3951_00225951_20241031.html', 'the entry is operating-system metadata, not a filing'],
    ]);
  });

  it('gives the same filings from the zip as from a folder of the same files', async () => {
    const fromZip = (await collect(readAccountsZip(zipPath, bounds))).filter((outcome) => outcome.ok);
    const fromFolder = await collect(readAccountsFolder(FILINGS, bounds));
    expect(fromFolder).toEqual(fromZip);
  });

  it('refuses a file over the size bound in a folder', async () => {
    const outcomes = await collect(readAccountsFolder(FILINGS, { maxEntryBytes: 200_000, maxExpansionRatio: 100 }));
    const refused = outcomes.filter((outcome) => !outcome.ok).map(nameOf);
    expect(refused).toEqual([
      'Prod223_2911_04184222_20200229.html',
      'Prod223_2911_05078870_20200930.html',
      'Prod223_2911_07219455_20200630.html',
      'Prod223_2911_08119445_20201231.html',
    ]);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(real.length - 4);
  });
});

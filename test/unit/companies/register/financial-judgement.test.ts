import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readFiling } from '../../../../shared/accounts';
import { financialsOf } from '../../../../shared/accounts/import/financials-of-filing';
import type { Financials } from '../../../../shared/companies/profile';
import { validateProfileContent } from '../../../../shared/companies/profile-validation';
import { judgeSize } from '../../../../shared/register/blocks/size-band';
import { registerProfile } from '../../../../shared/register/register-profile';
import type { SnapshotFacts } from '../../../../shared/register/snapshot-facts';
import { readSnapshot } from '../../../../shared/register/snapshot-reader';
import { BULK_HEADER, type BulkCompany, bulkRow } from '../../../../tools/register-files';

const FILINGS = join(import.meta.dirname, '../../../fixtures/accounts/filings');

/** The figures of a real filing, as the profile records them. */
function filed(entryName: string): Financials {
  const outcome = readFiling(entryName, readFileSync(join(FILINGS, entryName)));
  if (!outcome.ok) throw new Error(outcome.reason);
  return financialsOf(outcome.filing, 'Accounts_Bulk_Data-2023-03-02.zip', 'companies-house-accounts-data');
}

async function factsOf(company: Partial<BulkCompany> & Pick<BulkCompany, 'number'>): Promise<SnapshotFacts> {
  const row = bulkRow({
    name: 'FIGURES LIMITED',
    category: 'Private Limited Company',
    status: 'Active',
    incorporatedOn: '2015-03-01',
    ...company,
  });
  for await (const record of readSnapshot(Readable.from([`${BULK_HEADER}\n${row}\n`]))) if (record.facts) return record.facts;
  throw new Error('the row was refused');
}

const AS_OF = '2023-03-01';

describe('the size band by the statutory test', () => {
  it('takes the smallest band two of whose limits the figures are within (full accounts with turnover)', () => {
    // Turnover £13,511,844 and balance-sheet total £6,020,585 (fixed £388,902 + current £5,631,683) are within the
    // small limits (£15m, £7.5m); 243 employees are not, and need not be: two of three decide.
    expect(judgeSize(filed('Prod223_2911_08119445_20201231.html'), 'FULL')).toEqual({
      band: 'small',
      basis: 'statutory-test',
      detail: 'turnover £13,511,844, balance-sheet total £6,020,585, average employees 243',
    });
  });

  it('decides without turnover when the balance sheet and employees agree', () => {
    // Balance-sheet total £419,602 and 0.03 employees (as tagged) are within the micro limits.
    expect(judgeSize(filed('Prod223_3384_09355500_20221231.html'), 'FULL')).toMatchObject({ band: 'micro', basis: 'statutory-test' });
  });

  it('falls back to the kind of accounts the filing declares when the figures cannot tell', () => {
    // £636,760 is beyond the micro balance-sheet limit, one employee within it, turnover not filed: micro or small.
    expect(judgeSize(filed('Prod223_3951_00225951_20241031.html'), null)).toMatchObject({ band: 'small', basis: 'filed-accounts-type' });
  });

  it("judges a parent company with its group: medium when the group is, though the company's own figures cannot tell", () => {
    // The group: turnover £21,444,801 (beyond the small limit), balance-sheet total £6,005,155, 138 employees (beyond):
    // medium. The company: balance sheet £3,111,820 and 138 employees, within the medium limits, not filing turnover.
    expect(judgeSize(filed('Prod223_2911_05078870_20200930.html'), 'GROUP')).toEqual({
      band: 'medium',
      basis: 'statutory-test',
      detail:
        'the group: turnover £21,444,801, balance-sheet total £6,005,155, average employees 138; the company: turnover not filed, balance-sheet total £3,111,820, average employees 138; a parent company is judged with its group (ss. 383, 384B, 466)',
    });
  });

  it('makes a parent large when its group is, whatever the company alone files', () => {
    // The group: balance-sheet total £28,210,654 and 843 employees, both beyond the medium limits.
    expect(judgeSize(filed('Prod223_2911_07219455_20200630.html'), 'GROUP')).toMatchObject({ band: 'large', basis: 'statutory-test' });
  });

  it('never makes a parent that prepares group accounts a micro-entity', () => {
    const tiny = { turnover: { amountMinor: 400_000_00, currency: 'GBP' }, employees: 3 };
    const parent = filed('Prod223_2911_05078870_20200930.html');
    const financials: Financials = { ...parent, ...tiny, group: { ...(parent.group as NonNullable<Financials['group']>), ...tiny } };
    // Within the micro limits twice over, company and group alike: small, the least a parent can be (s. 384B).
    expect(judgeSize(financials, 'GROUP')).toMatchObject({ band: 'small', basis: 'statutory-test' });
    const { group: _group, ...alone } = financials;
    expect(judgeSize(alone, 'GROUP')).toMatchObject({ band: 'micro', basis: 'statutory-test' });
  });

  it("gives a parent no band when its group's figures cannot tell, rather than the company's own; full accounts say nothing", () => {
    // The company alone would be medium (balance sheet £26,413,585, 240 employees); of the group only its profit is tagged.
    expect(judgeSize(filed('Prod223_2911_04184222_20200229.html'), 'GROUP')).toMatchObject({
      band: null,
      basis: null,
      detail: expect.stringMatching(/^the group: turnover not filed, .*: too few figures for the test$/),
    });
  });

  it('reads the register category only when there are no figures, and says so', () => {
    expect(judgeSize(undefined, 'TOTAL EXEMPTION FULL')).toMatchObject({ band: 'small', basis: 'register-accounts-category' });
    expect(judgeSize(undefined, 'FULL')).toEqual({ band: null, basis: null, detail: null });
    expect(judgeSize(undefined, 'AUDIT EXEMPTION SUBSIDIARY')).toEqual({ band: null, basis: null, detail: null });
  });

  it('scales the turnover limit with a period that is not a year', () => {
    const year: Financials = {
      ...filed('Prod223_2911_08119445_20201231.html'),
      periodStart: '2020-07-01',
      turnover: { amountMinor: 9_000_000_00, currency: 'GBP' },
      fixedAssets: { amountMinor: 9_000_000_00, currency: 'GBP' },
      employees: 20,
    };
    // Six months: the small turnover limit is £7.5m, so £9m is beyond it, as is the balance sheet; 20 employees are within.
    expect(judgeSize(year, null)).toMatchObject({ band: 'medium', basis: 'statutory-test' });
    expect(judgeSize({ ...year, periodStart: '2020-01-01' }, null)).toMatchObject({ band: 'small' });
  });
});

describe('a profile with filed figures', () => {
  it('carries the figures, the employees band and where every figure came from', async () => {
    const financials = filed('Prod223_2911_08119445_20201231.html');
    const profile = registerProfile(await factsOf({ number: '08119445', accountCategory: 'FULL' }), AS_OF, undefined, financials);
    expect(validateProfileContent(profile).ok).toBe(true);
    expect(profile.overview).toMatchObject({ sizeBand: 'small', employeesBand: '50-249' });
    expect(profile.overview.financials).toMatchObject({
      periodStart: '2020-01-01',
      periodEnd: '2020-12-31',
      accountsType: 'full',
      turnover: { amountMinor: 1_351_184_400, currency: 'GBP' },
      profitOrLoss: { amountMinor: 169_141_900, currency: 'GBP' },
      netAssets: { amountMinor: 293_502_600, currency: 'GBP' },
      employees: 243,
      prior: { netAssets: { amountMinor: 124_360_700, currency: 'GBP' } },
      provenance: {
        source: 'companies-house-accounts-data',
        archive: 'Accounts_Bulk_Data-2023-03-02.zip',
        entry: 'Prod223_2911_08119445_20201231.html',
        figures: { 'current.turnover': [{ concept: 'ns6:TurnoverRevenue', contextId: 'FY_31_12_2020' }] },
      },
    });
    expect(profile.overview.provenance?.facts['derived.overview.sizeBasis']).toBe('statutory-test');
  });

  it("carries a group's figures beside the parent's own, judges its size with them, and its credit on its own", async () => {
    const financials = filed('Prod223_2911_07219455_20200630.html');
    const profile = registerProfile(await factsOf({ number: '07219455', accountCategory: 'GROUP' }), AS_OF, undefined, financials);
    expect(validateProfileContent(profile).ok).toBe(true);
    expect(profile.overview).toMatchObject({
      sizeBand: 'large',
      financials: {
        netAssets: { amountMinor: 455_946_000, currency: 'GBP' },
        group: { periodEnd: '2020-06-30', turnover: { amountMinor: 2_724_061_500, currency: 'GBP' }, employees: 843 },
        provenance: {
          figures: {
            'group.turnover': [
              { concept: 'core:TurnoverRevenue', contextId: 'FY1.segment.bus-GroupCompanyDataDimension.bus-Consolidated' },
            ],
          },
        },
      },
    });
    // The employees band is the company's: it reports none of its own.
    expect(profile.overview.employeesBand).toBeNull();
    // The limit is the company's: 10% of its own net assets of £4,559,460; the group's loss is not its loss.
    expect(profile.creditCapacity.drivers).toEqual(['10% of net assets of £4,559,460 at 2020-06-30']);
  });

  it('gives a credit limit from net assets, capped by turnover and scaled by risk, with its drivers in words', async () => {
    const financials = filed('Prod223_2911_08119445_20201231.html');
    const profile = registerProfile(await factsOf({ number: '08119445', accountCategory: 'FULL' }), AS_OF, undefined, financials);
    // 10% of net assets of £2,935,026 is £293,502.60, and 10% of working capital (current assets of £5,631,683 less
    // creditors due within a year of £3,069,153: £2,562,530) is £256,253: £549,755.60, down to two significant figures,
    // £540,000. 10% of turnover (£1.35m) does not cap it; Low risk keeps it whole. Trade: 40%, £216,000 → £210,000.
    expect(profile.creditCapacity).toMatchObject({
      creditLimit: { amountMinor: 540_000_00, currency: 'GBP' },
      tradeLimit: { amountMinor: 210_000_00, currency: 'GBP' },
      drivers: ['10% of net assets of £2,935,026 at 2020-12-31', '10% of working capital of £2,562,530'],
    });
    expect(profile.creditCapacity.reason).toBeUndefined();
    // Figures that say nothing adverse leave the risk as the register facts made it, under the same rule.
    expect(profile.riskOfFailure).toMatchObject({ level: 'Low', drivers: ['No adverse indicators in the register'] });
    expect(profile.riskOfFailure.provenance?.rule).toBe('bureau-risk-scorecard-v1');
  });

  it('adds working capital, and caps the limit at a tenth of a year of turnover', async () => {
    const financials: Financials = {
      ...filed('Prod223_2911_08119445_20201231.html'),
      creditorsDueWithinOneYear: { amountMinor: 363_168_300, currency: 'GBP' },
      turnover: { amountMinor: 300_000_000, currency: 'GBP' },
    };
    const credit = registerProfile(await factsOf({ number: '08119445' }), AS_OF, undefined, financials).creditCapacity;
    // 10% of £2,935,026 plus 10% of working capital £2,000,000 is £493,502, above 10% of £3,000,000 turnover.
    expect(credit.creditLimit).toEqual({ amountMinor: 300_000_00, currency: 'GBP' });
    expect(credit.drivers).toEqual([
      '10% of net assets of £2,935,026 at 2020-12-31',
      '10% of working capital of £2,000,000',
      "Capped at 10% of a year's turnover of £3,000,000",
    ]);
  });

  it('turns net liabilities and short-term debts beyond current assets into risk drivers, and gives no credit', async () => {
    // A micro-entity: net assets -£577; creditors due within a year £7,657 against current assets £7,558.
    const financials = filed('Prod223_3384_14033910_20220831.html');
    const profile = registerProfile(await factsOf({ number: '14033910', incorporatedOn: '2022-04-07' }), AS_OF, undefined, financials);
    expect(profile.riskOfFailure.drivers).toEqual(
      expect.arrayContaining([
        'Liabilities exceed assets: net assets of -£577 at 2022-08-31',
        'Creditors due within a year (£7,657) exceed current assets (£7,558) at 2022-08-31',
      ]),
    );
    // Base 10 + under a year old 10 + net liabilities 15 + short-term debts 10.
    expect(profile.riskOfFailure).toMatchObject({ score: 45, level: 'Moderate' });
    expect(profile.creditCapacity).toMatchObject({ creditLimit: { amountMinor: 0 }, tradeLimit: { amountMinor: 0 } });
    expect(profile.overview).toMatchObject({ sizeBand: 'micro', employeesBand: '0-9' });
  });

  it('sees net assets falling against the prior period', async () => {
    // Net liabilities grew from £14,964 to £20,555 (old UK GAAP 2009 taxonomy).
    const financials = filed('Prod223_1789_09175128_20160831.html');
    const profile = registerProfile(
      await factsOf({ number: '09175128', incorporatedOn: '2014-08-15' }),
      '2017-01-01',
      undefined,
      financials,
    );
    expect(profile.riskOfFailure.drivers).toContain('Net assets fell from -£14,964 at 2015-08-31 to -£20,555 at 2016-08-31');
  });

  it('gives no limit, with a reason, where there are no figures, the company is dormant or it has ended', async () => {
    const none = registerProfile(await factsOf({ number: '01000001', accountCategory: 'FULL' }), AS_OF);
    expect(none.creditCapacity).toMatchObject({ creditLimit: null, tradeLimit: null, reason: { code: 'no_filed_accounts' } });
    expect(none.overview).toMatchObject({ sizeBand: null, employeesBand: null });

    const dormant = registerProfile(await factsOf({ number: '14068295' }), AS_OF, undefined, filed('Prod223_3384_14068295_20221231.html'));
    expect(dormant.creditCapacity).toMatchObject({ creditLimit: null, reason: { code: 'dormant' } });

    const dissolved = registerProfile(
      await factsOf({ number: '08119445', status: 'Dissolved', dissolvedOn: '2022-06-01' }),
      AS_OF,
      undefined,
      filed('Prod223_2911_08119445_20201231.html'),
    );
    expect(dissolved.creditCapacity).toMatchObject({ creditLimit: null, reason: { code: 'ended' } });
    for (const profile of [none, dormant, dissolved]) expect(validateProfileContent(profile).ok).toBe(true);
  });

  it('keeps the figures when the next snapshot is derived over the profile', async () => {
    const financials = filed('Prod223_2911_08119445_20201231.html');
    const facts = await factsOf({ number: '08119445' });
    const first = registerProfile(facts, AS_OF, undefined, financials);
    const next = registerProfile(facts, '2023-04-01', { ...first, version: 1, updatedAt: '2023-03-01T00:00:00Z' });
    expect(next.overview.financials).toEqual(financials);
    expect(next.creditCapacity).toBe(first.creditCapacity);
  });
});

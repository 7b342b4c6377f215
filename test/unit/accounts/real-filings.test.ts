import { describe, expect, it } from 'vitest';
import { filingReader, readFiling } from '../../../shared/accounts';
import { accepted, fixture, gbp } from './support';

/**
 * Real filings from the Companies House register (see test/fixtures/accounts/README.md). Every
 * figure below was read in the filing's own markup: the tagged text, its format, scale and sign.
 */
function read(name: string) {
  return accepted(readFiling(name, fixture(name)));
}

describe('a micro-entity filing (FRS 105, FRC 2014 taxonomy, uk-core/uk-bus)', () => {
  const name = 'GB-COH-05969206-2017-10-31.html';

  it('says it is a micro-entity from the member its AccountingStandardsApplied fact names', () => {
    const filing = read(name);
    expect(filing.accountsType).toEqual({
      type: 'micro-entity',
      basis: 'uk-bus:AccountingStandardsApplied names Micro-entities (AccountingStandardsDimension)',
    });
    expect(filing.taxonomy).toEqual({ generation: 'frc-2014', year: 2014 });
  });

  it('reads the balance sheet of both years, creditors from the WithinOneYear member of Creditors', () => {
    const filing = read(name);
    expect(filing).toMatchObject({
      companyNumber: '05969206',
      balanceSheetDate: '2017-10-31',
      periodStart: '2016-11-01',
      periodEnd: '2017-10-31',
    });
    expect(filing.current).toMatchObject({
      netAssets: gbp(381_000, 'uk-core:NetAssetsLiabilities', 'icur1', name),
      currentAssets: gbp(290_900, 'uk-core:CurrentAssets', 'icur1', name),
      creditorsDueWithinOneYear: gbp(671_900, 'uk-core:Creditors', 'icur9', name),
      fixedAssets: gbp(0, 'uk-core:FixedAssets', 'icur1', name),
    });
    expect(filing.prior).toMatchObject({
      periodEnd: '2016-10-31',
      netAssets: gbp(129_400, 'uk-core:NetAssetsLiabilities', 'iprev8', name),
      creditorsDueWithinOneYear: gbp(587_900, 'uk-core:Creditors', 'iprev10', name),
    });
  });

  it('leaves out what a micro-entity does not file: turnover, profit, cash, employees', () => {
    const { current } = read(name);
    expect(current.turnover).toBeUndefined();
    expect(current.profitOrLoss).toBeUndefined();
    expect(current.cash).toBeUndefined();
    expect(current.employees).toBeUndefined();
  });
});

describe('old UK GAAP filings (2009 taxonomy, uk-gaap-pt)', () => {
  it('reads net assets from NetAssetsLiabilitiesIncludingPensionAssetLiability and creditors from CreditorsDueWithinOneYear', () => {
    const name = 'GB-COH-07175596-2017-03-31.html';
    const filing = read(name);
    expect(filing.taxonomy).toEqual({ generation: 'uk-gaap-2009', year: 2009 });
    expect(filing.accountsType).toBeUndefined();
    expect(filing.current).toMatchObject({
      netAssets: gbp(321_900, 'uk-gaap-pt:NetAssetsLiabilitiesIncludingPensionAssetLiability', 'current-mud', name),
      totalAssetsLessCurrentLiabilities: gbp(321_900, 'uk-gaap-pt:TotalAssetsLessCurrentLiabilities', 'current-mud', name),
      creditorsDueWithinOneYear: gbp(115_400, 'uk-gaap-pt:CreditorsDueWithinOneYear', 'current-mud', name),
    });
    expect(filing.prior?.creditorsDueWithinOneYear?.amountMinor).toBe(49_500);
  });

  it('applies sign="-" to negative net assets, year and prior year', () => {
    const name = 'Prod223_1789_09175128_20160831.html';
    const filing = read(name);
    expect(filing.current.netAssets).toEqual(
      gbp(-2_055_500, 'uk-gaap-pt:NetAssetsLiabilitiesIncludingPensionAssetLiability', 'current-mud', name),
    );
    expect(filing.prior?.netAssets?.amountMinor).toBe(-1_496_400);
    expect(filing.current.currentAssets?.amountMinor).toBe(155_700);
    expect(filing.prior?.fixedAssets?.amountMinor).toBe(153_800);
  });

  it('reads a dash under ixt:zerodash as zero', () => {
    const filing = read('GB-COH-07713141-2016-09-30.html');
    expect(filing.current.currentAssets?.amountMinor).toBe(0);
    expect(filing.current.netAssets?.amountMinor).toBe(100_000);
  });
});

describe('small companies', () => {
  it('an abridged FRS 102 section 1A filing without a profit and loss account: small, no turnover, fixed assets from PPE', () => {
    const name = 'GB-COH-10087608-2018-03-31.html';
    const filing = read(name);
    expect(filing.accountsType?.type).toBe('small');
    expect(filing.accountsType?.basis).toContain('SmallEntities');
    expect(filing.current.turnover).toBeUndefined();
    expect(filing.current.profitOrLoss).toBeUndefined();
    expect(filing.current).toMatchObject({
      netAssets: gbp(3_224_800, 'ns5:NetAssetsLiabilities', 'cfwd_31_03_2018', name),
      cash: gbp(6_723_600, 'ns5:CashBankOnHand', 'cfwd_31_03_2018', name),
      fixedAssets: gbp(5_298_200, 'ns5:PropertyPlantEquipment', 'cfwd_31_03_2018', name),
      employees: {
        count: 5,
        provenance: [expect.objectContaining({ concept: 'ns5:AverageNumberEmployeesDuringPeriod', contextId: 'FY_31_03_2018' })],
      },
    });
    expect(filing.prior).toMatchObject({ periodStart: '2016-03-29', periodEnd: '2017-03-31', employees: { count: 4 } });
  });

  it('a filleted filing in the 2024 taxonomy (core:/bus:): small, both years', () => {
    const name = 'Prod223_3951_00225951_20241031.html';
    const filing = read(name);
    expect(filing.taxonomy).toEqual({ generation: 'frc-2022', year: 2024 });
    expect(filing.accountsType).toEqual({ type: 'small', basis: 'bus:AccountsType names FilletedAccounts (AccountsTypeDimension)' });
    expect(filing.current).toMatchObject({
      netAssets: gbp(59_532_500, 'core:NetAssetsLiabilities', 'CurrYearEnd', name),
      totalAssetsLessCurrentLiabilities: gbp(61_679_200, 'core:TotalAssetsLessCurrentLiabilities', 'CurrYearEnd', name),
      creditorsDueWithinOneYear: gbp(1_996_800, 'core:Creditors', 'CurrYearEnd_Dim003', name),
      cash: gbp(5_390_100, 'core:CashBankOnHand', 'CurrYearEnd', name),
    });
    expect(filing.prior).toMatchObject({
      periodStart: '2022-11-01',
      periodEnd: '2023-10-31',
      netAssets: gbp(60_129_700, 'core:NetAssetsLiabilities', 'CurrYearStart', name),
      creditorsDueWithinOneYear: gbp(2_949_300, 'core:Creditors', 'CompYearEnd_Dim004', name),
    });
  });

  it('an abridged filing in the frs- prefixes of 2021: small from AccountsTypeFullOrAbbreviated', () => {
    const filing = read('Prod223_3384_NI682066_20220930.html');
    expect(filing.accountsType).toEqual({
      type: 'small',
      basis: 'frs-bus:AccountsTypeFullOrAbbreviated names AbridgedAccounts (AccountsTypeDimension)',
    });
    expect(filing.current.netAssets?.amountMinor).toBe(838_200);
    expect(filing.current.employees?.count).toBe(2);
  });
});

describe('full accounts', () => {
  it('reads turnover, profit, the balance sheet and employees for both years', () => {
    const name = 'Prod223_2911_08119445_20201231.html';
    const filing = read(name);
    expect(filing.accountsType?.type).toBe('full');
    expect(filing.group).toBeUndefined();
    expect(filing.current).toMatchObject({
      periodStart: '2020-01-01',
      periodEnd: '2020-12-31',
      turnover: gbp(1_351_184_400, 'ns6:TurnoverRevenue', 'FY_31_12_2020', name),
      profitOrLoss: gbp(169_141_900, 'ns6:ProfitLoss', 'FY_31_12_2020', name),
      netAssets: gbp(293_502_600, 'ns6:NetAssetsLiabilities', 'cfwd_31_12_2020', name),
      currentAssets: gbp(563_168_300, 'ns6:CurrentAssets', 'cfwd_31_12_2020', name),
      cash: gbp(139_797_800, 'ns6:CashBankOnHand', 'cfwd_31_12_2020', name),
      fixedAssets: gbp(38_890_200, 'ns6:FixedAssets', 'cfwd_31_12_2020', name),
      employees: { count: 243 },
    });
    expect(filing.prior).toMatchObject({
      periodStart: '2019-01-01',
      turnover: gbp(1_587_163_300, 'ns6:TurnoverRevenue', 'FY_31_12_2019', name),
      profitOrLoss: gbp(166_935_100, 'ns6:ProfitLoss', 'FY_31_12_2019', name),
      employees: { count: 137 },
    });
  });

  it("keeps a group's consolidated figures out of the company's: turnover is filed for the group alone", () => {
    const name = 'Prod223_2911_05078870_20200930.html';
    const filing = read(name);
    // TurnoverRevenue is tagged only in Consolidated_Period_TMinusZero (21,444,801), a context with
    // the ConsolidatedGroupCompanyDimension member: a figure of the group, not of the company.
    expect(filing.current.turnover).toBeUndefined();
    // The group's own block holds it, with the rest of the consolidated accounts.
    expect(filing.group).toMatchObject({
      periodStart: '2019-10-01',
      periodEnd: '2020-09-30',
      turnover: gbp(2_144_480_100, 'core:TurnoverRevenue', 'Consolidated_Period_TMinusZero', name),
      currentAssets: gbp(584_920_300, 'core:CurrentAssets', 'Consolidated_PeriodEnd_TMinusZero', name),
      creditorsDueWithinOneYear: gbp(369_923_900, 'core:Creditors', 'Consolidated_WithinOneYear_PeriodEnd_TMinusZero', name),
      employees: { count: 138 },
    });
    expect(filing.current).toMatchObject({
      profitOrLoss: gbp(98_952_800, 'core:ProfitLoss', 'Period_TMinusZero', name),
      netAssets: gbp(126_240_300, 'core:NetAssetsLiabilities', 'PeriodEnd_TMinusZero', name),
      creditorsDueWithinOneYear: gbp(183_216_500, 'core:Creditors', 'WithinOneYear_PeriodEnd_TMinusZero', name),
      employees: { count: 138 },
    });
  });

  it('reads creditors due within one year from the CurrentFinancialInstruments member of Creditors', () => {
    const name = 'Prod223_2911_08119445_20201231.html';
    const filing = read(name);
    // "CREDITORS Amounts falling due within one year 12 3,069,153 2,011,337"
    expect(filing.current.creditorsDueWithinOneYear).toEqual(
      gbp(306_915_300, 'ns6:Creditors', 'CreditorsHypercube_cfwd_31_12_2020_Set1', name),
    );
    expect(filing.prior?.creditorsDueWithinOneYear?.amountMinor).toBe(201_133_700);
  });

  it('applies sign="-" to negative net assets in the FRC 2021 taxonomy', () => {
    const name = 'Prod223_3384_SC720321_20230131.html';
    const filing = read(name);
    expect(filing.current.netAssets).toEqual(gbp(-2_273_700, 'frs-core:NetAssetsLiabilities', 'CURRENT_FY_END', name));
    expect(filing.current.totalAssetsLessCurrentLiabilities?.amountMinor).toBe(123_600);
  });

  it('gives no prior period for a first set of accounts, whose only earlier facts are opening balances', () => {
    expect(read('Prod223_3384_SC720321_20230131.html').prior).toBeUndefined();
  });

  it('applies a negative scale as filed: 3 employees tagged with scale -2 are 0.03', () => {
    const filing = read('Prod223_3384_09355500_20221231.html');
    expect(filing.current.employees?.count).toBe(0.03);
    expect(filing.prior?.employees?.count).toBe(0.02);
    expect(filing.current.netAssets?.amountMinor).toBe(37_500_400);
  });
});

describe("a group's parent company: its own figures, never the group's", () => {
  it('reads a document that declares the xml prefix again, as filings from some software do', () => {
    // <html xmlns:xml="http://www.w3.org/XML/1998/namespace" ...>: the binding every document has.
    const name = 'Prod223_2911_07219455_20200630.html';
    const filing = read(name);
    expect(filing.accountsType).toEqual({
      type: 'full',
      basis: 'bus:AccountsTypeFullOrAbbreviated names FullAccounts (AccountsTypeDimension)',
    });
    // The company's own balance sheet: "Investments 13 2,301 2,301 ... Net assets 4,559,460 4,559,460".
    expect(filing.current).toMatchObject({
      netAssets: gbp(455_946_000, 'core:NetAssetsLiabilities', 'FY1.END', name),
      fixedAssets: gbp(230_100, 'core:InvestmentsFixedAssets', 'FY1.END', name),
    });
    expect(filing.prior?.netAssets?.amountMinor).toBe(455_946_000);
  });

  it("keeps every consolidated figure out of the company's, and gives them as the group's", () => {
    const name = 'Prod223_2911_07219455_20200630.html';
    const filing = read(name);
    // "Consolidated Balance Sheet ... Creditors: Amounts falling due within one year 16 (10,109,039)"; 843 staff.
    expect(filing.group).toMatchObject({
      turnover: gbp(2_724_061_500, 'core:TurnoverRevenue', 'FY1.segment.bus-GroupCompanyDataDimension.bus-Consolidated', name),
      profitOrLoss: { amountMinor: -444_288_900 },
      netAssets: { amountMinor: 558_193_000 },
      fixedAssets: { amountMinor: 2_213_754_700 },
      currentAssets: { amountMinor: 607_310_700 },
      creditorsDueWithinOneYear: { amountMinor: 1_010_903_900 },
      employees: { count: 843 },
    });
    // Tagged only in contexts naming GroupCompanyDataDimension = Consolidated: turnover 27,240,615,
    // a loss of 4,442,889, net assets 5,581,930, creditors within a year 10,109,039, 843 employees.
    expect(filing.current.turnover).toBeUndefined();
    expect(filing.current.profitOrLoss).toBeUndefined();
    expect(filing.current.creditorsDueWithinOneYear).toBeUndefined();
    expect(filing.current.employees).toBeUndefined();
    // The company's own result appears only for the prior year, in its statement of changes in equity.
    expect(filing.prior?.profitOrLoss?.amountMinor).toBe(32_900_000);
  });

  it("does not take the group's turnover, tagged in the segment note without the group member, for the company's", () => {
    const name = 'Prod223_2911_04184222_20200229.html';
    const filing = read(name);
    // The parent publishes no profit and loss account of its own (s408). TurnoverRevenue is tagged
    // only by segment (the totals 27,422,706 under OperatingSegmentsDimension and
    // GeographicSegmentsDimension), and the report says "Consolidated group turnover ... grew to
    // £27,422,706": a figure of the group, though no context says so.
    expect(filing.current.turnover).toBeUndefined();
    expect(filing.prior?.turnover).toBeUndefined();
    // "Company's loss for the financial year (4,661,730)"; the group's profit of 3,032,933 is left out.
    expect(filing.current).toMatchObject({
      profitOrLoss: gbp(-466_173_000, 'ns6:ProfitLoss', 'FY_29_02_2020', name),
      netAssets: gbp(93_439_300, 'ns6:NetAssetsLiabilities', 'cfwd_29_02_2020', name),
      totalAssetsLessCurrentLiabilities: gbp(1_194_135_700, 'ns6:TotalAssetsLessCurrentLiabilities', 'cfwd_29_02_2020', name),
      creditorsDueWithinOneYear: gbp(1_447_222_800, 'ns6:Creditors', 'CreditorsHypercube_cfwd_29_02_2020_Set2', name),
    });
    expect(filing.prior?.netAssets?.amountMinor).toBe(559_612_300);
  });
});

describe('dormant companies', () => {
  it('a dormant company says so with EntityDormantTruefalse, whatever standard it names', () => {
    const filing = read('Prod223_3384_14068295_20221231.html');
    expect(filing.accountsType).toEqual({ type: 'dormant', basis: 'frs-bus:EntityDormantTruefalse is true' });
    expect(filing.current.netAssets?.amountMinor).toBe(10_000);
  });

  it('a dormant LLP files no balance-sheet figure this reader knows; nothing is made up', () => {
    const filing = read('Prod223_3384_OC437536_20220531.html');
    expect(filing.accountsType?.type).toBe('dormant');
    expect(Object.keys(filing.current).sort()).toEqual(['employees', 'periodEnd', 'periodStart']);
    expect(filing.current.employees?.count).toBe(0);
  });
});

describe('the taxonomy generations map to the same figures', () => {
  it.each([
    ['GB-COH-07175596-2017-03-31.html', 'uk-gaap-2009', 'uk-gaap-pt:CurrentAssets', 437_300],
    ['GB-COH-05969206-2017-10-31.html', 'frc-2014', 'uk-core:CurrentAssets', 290_900],
    ['Prod223_3384_NI681295_20220831.html', 'frc-2014', 'uk-core:CurrentAssets', 1_034_600],
    ['Prod223_3384_14033910_20220831.html', 'frc-2014', 'core:CurrentAssets', 755_800],
    ['Prod223_3384_OC438238_20220731.html', 'frc-2014', 'frs-core:CurrentAssets', 350_700],
    ['Prod223_3951_00225951_20241031.html', 'frc-2022', 'core:CurrentAssets', 5_845_300],
  ])('%s (%s) gives current assets from %s', (name, generation, concept, amountMinor) => {
    const filing = read(name);
    expect(filing.taxonomy?.generation).toBe(generation);
    expect(filing.current.currentAssets).toMatchObject({ amountMinor, provenance: [{ concept }] });
  });

  it('reads negative net assets and a micro-entity from the core: prefix', () => {
    const filing = read('Prod223_3384_14033910_20220831.html');
    expect(filing.accountsType?.type).toBe('micro-entity');
    expect(filing.current.netAssets?.amountMinor).toBe(-57_700);
  });

  it('reads every fixture without a conflict', () => {
    for (const name of ['GB-COH-05969206-2017-10-31.html', 'Prod223_2911_08119445_20201231.html', 'Prod223_3384_SC722766_20230228.html']) {
      expect(read(name).conflicts).toEqual([]);
    }
  });
});

describe('streaming', () => {
  it('reads a filing fed in small chunks, split inside tags and characters, as it reads it whole', () => {
    const name = 'Prod223_3951_00225951_20241031.html';
    const bytes = fixture(name);
    const reader = filingReader(name);
    for (let offset = 0; offset < bytes.length; offset += 7) reader.write(bytes.subarray(offset, offset + 7));
    expect(reader.end()).toEqual(readFiling(name, bytes));
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFiling } from '../../../shared/accounts';
import { ANOMALIES, accepted, fixture, rejected } from './support';

/**
 * Inline XBRL semantics on small documents written for the rule each test protects; the real
 * filings are in real-filings.test.ts.
 */
const NAME = 'Prod223_4001_01234567_20241231.html';
const CORE = 'http://xbrl.frc.org.uk/fr/2024-01-01/core';
const BUS = 'http://xbrl.frc.org.uk/cd/2024-01-01/business';

function document(body: string, options: { number?: string; ixt?: string } = {}): string {
  const number = options.number ?? '01234567';
  return `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
  xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi"
  xmlns:iso4217="http://www.xbrl.org/2003/iso4217" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:ixt="${options.ixt ?? 'http://www.xbrl.org/inlineXBRL/transformation/2020-02-12'}"
  xmlns:ixt2="http://www.xbrl.org/inlineXBRL/transformation/2011-07-31"
  xmlns:core="${CORE}" xmlns:bus="${BUS}">
<head><title>Accounts</title></head>
<body>
<div style="display:none"><ix:header>
 <ix:hidden>
  <ix:nonNumeric name="bus:UKCompaniesHouseRegisteredNumber" contextRef="year">${number}</ix:nonNumeric>
  <ix:nonFraction name="core:AverageNumberEmployeesDuringPeriod" contextRef="year" unitRef="pure" decimals="0">7</ix:nonFraction>
 </ix:hidden>
 <ix:resources>
  <xbrli:context id="year"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier></xbrli:entity>
   <xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:context id="end"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier></xbrli:entity>
   <xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:context id="priorEnd"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier></xbrli:entity>
   <xbrli:period><xbrli:instant>2023-12-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:context id="endWithinOneYear"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier>
   <xbrli:segment><xbrldi:explicitMember dimension="core:MaturitiesOrExpirationPeriodsDimension">core:WithinOneYear</xbrldi:explicitMember></xbrli:segment></xbrli:entity>
   <xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:context id="endAfterOneYear"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier>
   <xbrli:segment><xbrldi:explicitMember dimension="core:MaturitiesOrExpirationPeriodsDimension">core:AfterOneYear</xbrldi:explicitMember></xbrli:segment></xbrli:entity>
   <xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:context id="yearGroup"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier></xbrli:entity>
   <xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period>
   <xbrli:scenario><xbrldi:explicitMember dimension="bus:ConsolidatedGroupCompanyDimension">bus:Consolidated</xbrldi:explicitMember></xbrli:scenario></xbrli:context>
  <xbrli:unit id="GBP"><xbrli:measure>iso4217:GBP</xbrli:measure></xbrli:unit>
  <xbrli:unit id="EUR"><xbrli:measure>iso4217:EUR</xbrli:measure></xbrli:unit>
  <xbrli:unit id="pure"><xbrli:measure>xbrli:pure</xbrli:measure></xbrli:unit>
 </ix:resources>
</ix:header></div>
${body}
</body></html>`;
}

const read = (body: string, options?: { number?: string; ixt?: string }) => readFiling(NAME, document(body, options));
const money = (concept: string, context: string, text: string, attributes = '', unit = 'GBP') =>
  `<ix:nonFraction name="${concept}" contextRef="${context}" unitRef="${unit}" decimals="0" ${attributes}>${text}</ix:nonFraction>`;

describe('numbers in ix:nonFraction', () => {
  it('multiplies by 10 to the power of scale: "1,234" at scale 3 is £1,234,000', () => {
    const filing = accepted(read(money('core:TurnoverRevenue', 'year', '1,234', 'format="ixt:num-dot-decimal" scale="3"')));
    expect(filing.current.turnover).toMatchObject({ amountMinor: 123_400_000, currency: 'GBP' });
  });

  it('negates under sign="-", after scaling: "2.5" at scale 3 is a loss of £2,500', () => {
    const filing = accepted(read(money('core:ProfitLoss', 'year', '2.5', 'scale="3" sign="-"')));
    expect(filing.current.profitOrLoss?.amountMinor).toBe(-250_000);
  });

  it.each([
    ['ixt:num-dot-decimal', '1,234,567.89', 123_456_789],
    ['ixt:num-comma-decimal', '1.234.567,89', 123_456_789],
    ['ixt2:numdotdecimal', '12 345.60', 1_234_560],
    ['ixt2:numcommadecimal', '12 345,60', 1_234_560],
    ['ixt:fixed-zero', '-', 0],
    ['ixt2:zerodash', '—', 0],
  ])('reads %s "%s"', (format, text, amountMinor) => {
    const filing = accepted(read(money('core:CashBankOnHand', 'end', text, `format="${format}"`)));
    expect(filing.current.cash?.amountMinor).toBe(amountMinor);
  });

  it('reads the 2010 registry names (numcommadot, numdotcomma, numdash)', () => {
    const ixt = 'http://www.xbrl.org/inlineXBRL/transformation/2010-04-20';
    const body = [
      money('core:CashBankOnHand', 'end', '4,321', 'format="ixt:numcommadot"'),
      money('core:CurrentAssets', 'end', '4.321,5', 'format="ixt:numdotcomma"'),
      money('core:FixedAssets', 'end', '-', 'format="ixt:numdash"'),
    ].join('');
    const filing = accepted(read(body, { ixt }));
    expect(filing.current.cash?.amountMinor).toBe(432_100);
    expect(filing.current.currentAssets?.amountMinor).toBe(432_150);
    expect(filing.current.fixedAssets?.amountMinor).toBe(0);
  });

  it('rounds a fraction of a penny half away from zero', () => {
    const filing = accepted(read(money('core:CashBankOnHand', 'end', '10.005') + money('core:CurrentAssets', 'end', '10.004')));
    expect(filing.current.cash?.amountMinor).toBe(1001);
    expect(filing.current.currentAssets?.amountMinor).toBe(1000);
  });

  it('keeps a nil fact out: xsi:nil gives no figure, not zero', () => {
    const filing = accepted(
      read('<ix:nonFraction name="core:CashBankOnHand" contextRef="end" unitRef="GBP" decimals="0" xsi:nil="true"/>'),
    );
    expect(filing.current.cash).toBeUndefined();
  });

  it('reads a nested ix:nonFraction as the same value once', () => {
    const inner = money('core:NetAssetsLiabilities', 'end', '5,000', 'format="ixt:num-dot-decimal"');
    const outer = `<ix:nonFraction name="core:Equity" contextRef="end" unitRef="GBP" decimals="0" format="ixt:num-dot-decimal">${inner}</ix:nonFraction>`;
    const filing = accepted(read(outer));
    expect(filing.current.netAssets?.amountMinor).toBe(500_000);
    expect(filing.current.netAssets?.provenance[0]?.concept).toBe('core:NetAssetsLiabilities');
    expect(filing.conflicts).toEqual([]);
  });

  it('reads facts inside ix:hidden like any other (employees above are hidden)', () => {
    expect(accepted(read('')).current.employees).toMatchObject({
      count: 7,
      provenance: [{ concept: 'core:AverageNumberEmployeesDuringPeriod', contextId: 'year' }],
    });
  });

  it('takes the currency from the unit', () => {
    const filing = accepted(read(money('core:CashBankOnHand', 'end', '12', '', 'EUR')));
    expect(filing.current.cash).toMatchObject({ amountMinor: 1200, currency: 'EUR' });
  });
});

describe('dimensions', () => {
  it("keeps a fact in a dimension-qualified context out of the company's figures", () => {
    const filing = accepted(read(money('core:TurnoverRevenue', 'yearGroup', '900')));
    expect(filing.current.turnover).toBeUndefined();
  });

  it('takes creditors due within one year from Creditors with the WithinOneYear member, not AfterOneYear', () => {
    const body = money('core:Creditors', 'endWithinOneYear', '300') + money('core:Creditors', 'endAfterOneYear', '700');
    const filing = accepted(read(body));
    expect(filing.current.creditorsDueWithinOneYear).toMatchObject({
      amountMinor: 30_000,
      provenance: [{ contextId: 'endWithinOneYear' }],
    });
  });

  it('does not take plain Creditors (total creditors) for creditors due within one year', () => {
    const filing = accepted(read(money('core:Creditors', 'end', '1000')));
    expect(filing.current.creditorsDueWithinOneYear).toBeUndefined();
  });
});

describe('choosing among facts', () => {
  it('reports duplicate facts that disagree and gives no figure', () => {
    const filing = accepted(read(money('core:NetAssetsLiabilities', 'end', '100') + money('core:NetAssetsLiabilities', 'end', '101')));
    expect(filing.current.netAssets).toBeUndefined();
    expect(filing.conflicts).toEqual([
      {
        figure: 'netAssets',
        period: 'current',
        values: [
          { value: '100', unit: 'GBP', provenance: expect.objectContaining({ concept: 'core:NetAssetsLiabilities', contextId: 'end' }) },
          { value: '101', unit: 'GBP', provenance: expect.objectContaining({ concept: 'core:NetAssetsLiabilities', contextId: 'end' }) },
        ],
      },
    ]);
  });

  it('accepts duplicates that agree, whatever their formatting', () => {
    const body =
      money('core:NetAssetsLiabilities', 'end', '1,000', 'format="ixt:num-dot-decimal"') +
      money('core:NetAssetsLiabilities', 'end', '1', 'scale="3"');
    const filing = accepted(read(body));
    expect(filing.current.netAssets?.amountMinor).toBe(100_000);
    expect(filing.conflicts).toEqual([]);
  });

  it('prefers the first concept of the list: NetAssetsLiabilities over Equity', () => {
    const filing = accepted(read(money('core:Equity', 'end', '5') + money('core:NetAssetsLiabilities', 'end', '6')));
    expect(filing.current.netAssets?.provenance[0]?.concept).toBe('core:NetAssetsLiabilities');
  });

  it('adds fixed assets up from their classes when no total is tagged, naming every part', () => {
    const filing = accepted(read(money('core:PropertyPlantEquipment', 'end', '10') + money('core:IntangibleAssets', 'end', '5')));
    expect(filing.current.fixedAssets).toMatchObject({
      amountMinor: 1500,
      provenance: [{ concept: 'core:PropertyPlantEquipment' }, { concept: 'core:IntangibleAssets' }],
    });
  });

  it('knows a concept by namespace family and local name, whatever the prefix or year', () => {
    const body = `<span xmlns:e="http://xbrl.frc.org.uk/fr/2016-01-01/core">${money('e:CashBankOnHand', 'end', '42')}</span>`;
    expect(accepted(read(body)).current.cash).toMatchObject({
      amountMinor: 4200,
      provenance: [{ concept: 'e:CashBankOnHand', namespace: 'http://xbrl.frc.org.uk/fr/2016-01-01/core' }],
    });
  });

  it('ignores a concept of the same local name in a namespace outside the UK taxonomies', () => {
    const body = `<span xmlns:x="http://example.com/taxonomy">${money('x:CashBankOnHand', 'end', '42')}</span>`;
    expect(accepted(read(body)).current.cash).toBeUndefined();
  });

  it('reads the prior period from the comparatives', () => {
    const filing = accepted(read(money('core:NetAssetsLiabilities', 'priorEnd', '3') + money('core:NetAssetsLiabilities', 'end', '4')));
    expect(filing.prior).toMatchObject({ periodEnd: '2023-12-31', netAssets: { amountMinor: 300 } });
  });
});

describe('text facts', () => {
  it('joins ix:continuation to the text it continues, leaving ix:exclude out', () => {
    const body = `<ix:nonNumeric name="bus:UKCompaniesHouseRegisteredNumber" contextRef="year" continuedAt="c1">0123</ix:nonNumeric>
      <ix:continuation id="c1">45<ix:exclude>(page 2)</ix:exclude>67</ix:continuation>`;
    expect(accepted(read(body)).companyNumber).toBe('01234567');
    const other = `<ix:nonNumeric name="bus:UKCompaniesHouseRegisteredNumber" contextRef="year" continuedAt="c1">0765</ix:nonNumeric>
      <ix:continuation id="c1">4321</ix:continuation>`;
    expect(rejected(readFiling(NAME, document(other).replace(/>01234567</, '><')))).toContain('07654321');
  });

  it('says dormant from a true EntityDormantTruefalse, read through a boolean transformation', () => {
    const body = '<ix:nonNumeric name="bus:EntityDormantTruefalse" contextRef="year" format="ixt:fixed-true"></ix:nonNumeric>';
    expect(accepted(read(body)).accountsType).toEqual({ type: 'dormant', basis: 'bus:EntityDormantTruefalse is true' });
  });
});

describe('refusals, each with its reason', () => {
  it('refuses content that is neither XHTML nor XML: a real entry holding an attachment placeholder', () => {
    const name = 'Prod224_0088_11426842_20200630.xml';
    expect(rejected(readFiling(name, readFileSync(join(ANOMALIES, name))))).toBe(
      'the content is neither XHTML nor XML (it does not start with markup)',
    );
  });

  it('refuses a document whose root is neither html nor xbrl', () => {
    expect(rejected(readFiling(NAME, '<?xml version="1.0"?><feed/>'))).toContain('neither XHTML nor an XBRL instance');
  });

  it('refuses XHTML with no Inline XBRL in it', () => {
    expect(rejected(readFiling(NAME, '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Accounts</p></body></html>'))).toBe(
      'the XHTML document holds no Inline XBRL',
    );
  });

  it('refuses an entry whose name carries no company number', () => {
    expect(rejected(readFiling('Prod223_4001_ABC_20241231.html', document('')))).toContain('carries no company number');
    expect(rejected(readFiling('accounts.html', document('')))).toContain('is not an accounts entry name');
  });

  it("refuses another company's accounts under this company's name, from the document's registered number", () => {
    const reason = rejected(read('', { number: '07654321' }));
    expect(reason).toBe('the document is the accounts of company 07654321, not 01234567 as its name says');
  });

  it('refuses a real filing put under another company number', () => {
    const reason = rejected(readFiling('Prod223_3951_00225952_20241031.html', fixture('Prod223_3951_00225951_20241031.html')));
    expect(reason).toBe('the document is the accounts of company 00225951, not 00225952 as its name says');
  });

  it('refuses a balance-sheet date in the name that no period of the document ends on', () => {
    const reason = rejected(readFiling('Prod223_3951_00225951_20241130.html', fixture('Prod223_3951_00225951_20241031.html')));
    expect(reason).toContain('the balance-sheet date 2024-11-30 in the name matches no period in the document');
  });

  it('refuses an unknown transformation rather than guess what the digits meant', () => {
    const reason = rejected(read(money('core:TurnoverRevenue', 'year', 'ten thousand', 'format="ixt:num-word-en"')));
    expect(reason).toBe('core:TurnoverRevenue uses the unknown transformation "ixt:num-word-en"');
  });

  it('refuses a transformation from a registry it does not know', () => {
    const body = `<span xmlns:my="http://example.com/transforms">${money('core:TurnoverRevenue', 'year', '10', 'format="my:numdotdecimal"')}</span>`;
    expect(rejected(read(body))).toContain('unknown transformation "my:numdotdecimal"');
  });

  it('refuses a number that does not read under its format', () => {
    expect(rejected(read(money('core:CashBankOnHand', 'end', 'n/a')))).toBe('core:CashBankOnHand in context end: "n/a" is not a number');
  });
});

describe('XBRL instances (.xml)', () => {
  // Written in Companies House's 2009 abbreviated-accounts schema, the XBRL that older filings used.
  const xbrl = (number: string) => `<?xml version="1.0" encoding="UTF-8"?>
<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:iso4217="http://www.xbrl.org/2003/iso4217"
  xmlns:pt="http://www.xbrl.org/uk/fr/gaap/pt/2004-12-01" xmlns:ae="http://www.companieshouse.gov.uk/ef/xbrl/uk/fr/gaap/ae/2009-06-21"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <ae:CompaniesHouseRegisteredNumber contextRef="y1">${number}</ae:CompaniesHouseRegisteredNumber>
  <pt:ShareholderFunds contextRef="e1" unitRef="GBP" decimals="0">-1520</pt:ShareholderFunds>
  <pt:ShareholderFunds contextRef="e0" unitRef="GBP" decimals="0">480</pt:ShareholderFunds>
  <pt:CashBankInHand contextRef="e1" unitRef="GBP" decimals="2">310.55</pt:CashBankInHand>
  <pt:ProfitLossForPeriod contextRef="y1" unitRef="GBP" decimals="0">-2000</pt:ProfitLossForPeriod>
  <pt:CreditorsDueWithinOneYear contextRef="e1" unitRef="GBP" decimals="0" xsi:nil="true"/>
  <pt:ApprovalDetails><pt:DateApproval contextRef="y1">2010-09-01</pt:DateApproval></pt:ApprovalDetails>
  <xbrli:context id="y1"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:startDate>2009-04-01</xbrli:startDate><xbrli:endDate>2010-03-31</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:context id="e1"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:instant>2010-03-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:context id="e0"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">${number}</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:instant>2009-03-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:unit id="GBP"><xbrli:measure>iso4217:GBP</xbrli:measure></xbrli:unit>
</xbrli:xbrl>`;
  const name = 'Prod224_0012_06022930_20100331.xml';

  it('reads facts as elements, signed values as written, in the UK GAAP 2004 generation', () => {
    const filing = accepted(readFiling(name, xbrl('06022930')));
    expect(filing).toMatchObject({ format: 'xbrl', companyNumber: '06022930', periodStart: '2009-04-01', periodEnd: '2010-03-31' });
    expect(filing.taxonomy).toEqual({ generation: 'uk-gaap-2004', year: 2004 });
    expect(filing.accountsType?.type).toBe('small');
    expect(filing.current).toMatchObject({
      netAssets: {
        amountMinor: -152_000,
        currency: 'GBP',
        provenance: [{ concept: 'pt:ShareholderFunds', contextId: 'e1', entryName: name }],
      },
      cash: { amountMinor: 31_055 },
      profitOrLoss: { amountMinor: -200_000, provenance: [{ concept: 'pt:ProfitLossForPeriod' }] },
    });
    expect(filing.current.creditorsDueWithinOneYear).toBeUndefined();
    expect(filing.prior).toMatchObject({ periodEnd: '2009-03-31', netAssets: { amountMinor: 48_000 } });
  });

  it("refuses another company's number in CompaniesHouseRegisteredNumber", () => {
    expect(rejected(readFiling(name, xbrl('06022931')))).toBe(
      'the document is the accounts of company 06022931, not 06022930 as its name says',
    );
  });
});

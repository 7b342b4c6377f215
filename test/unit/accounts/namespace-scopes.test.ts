import { describe, expect, it } from 'vitest';
import { readFiling } from '../../../shared/accounts';
import { accepted } from './support';

/**
 * Namespace declarations anywhere in a document, not only on its root: the reader takes the page's
 * own elements for what they are before their attributes are read, and keeps the scopes of
 * documents that declare alike from one filing to the next. Neither may change what a name means.
 */
const NAME = 'Prod223_4001_01234567_20241231.html';
const CORE = 'http://xbrl.frc.org.uk/fr/2024-01-01/core';
const INLINE = 'http://www.xbrl.org/2013/inlineXBRL';

function document(body: string, rootDeclarations = `xmlns:core="${CORE}"`): string {
  return `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="${INLINE}"
  xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:iso4217="http://www.xbrl.org/2003/iso4217" ${rootDeclarations}>
<body>
<div style="display:none"><ix:header><ix:resources>
  <xbrli:context id="year"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">01234567</xbrli:identifier></xbrli:entity>
   <xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:context id="end"><xbrli:entity><xbrli:identifier scheme="http://www.companieshouse.gov.uk/">01234567</xbrli:identifier></xbrli:entity>
   <xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:unit id="GBP"><xbrli:measure>iso4217:GBP</xbrli:measure></xbrli:unit>
</ix:resources></ix:header></div>
${body}
</body></html>`;
}

describe('namespace declarations below the root', () => {
  it('reads an unprefixed element whose own declaration makes Inline XBRL its default namespace', () => {
    const filing = accepted(
      readFiling(
        NAME,
        document(
          `<p>Cash <nonFraction name="core:CashBankOnHand" xmlns="${INLINE}" contextRef="end" unitRef="GBP" decimals="0">1500</nonFraction></p>`,
        ),
      ),
    );
    expect(filing.current.cash).toMatchObject({ amountMinor: 150_000, currency: 'GBP' });
  });

  it('resolves the facts inside a page element, and only those, by the prefixes that element declares', () => {
    const fact = (concept: string, context: string, value: string) =>
      `<ix:nonFraction name="${concept}" contextRef="${context}" unitRef="GBP" decimals="0">${value}</ix:nonFraction>`;
    const filing = accepted(
      readFiling(
        NAME,
        document(
          `<br xmlns:c="${CORE}"/><table xmlns:c="${CORE}"><tr><td>${fact('c:TurnoverRevenue', 'year', '9000')}</td>` +
            `<td>${fact('c:ProfitLoss', 'year', '800')}</td></tr></table><p>${fact('c:CashBankOnHand', 'end', '70')}</p>`,
        ),
      ),
    );
    expect(filing.current.turnover).toMatchObject({
      amountMinor: 900_000,
      provenance: [{ concept: 'c:TurnoverRevenue', namespace: CORE }],
    });
    expect(filing.current.profitOrLoss?.amountMinor).toBe(80_000);
    expect(filing.current.cash).toBeUndefined();
  });

  it('keeps a page element that declares the page namespace again the page’s own', () => {
    const filing = accepted(
      readFiling(
        NAME,
        document(
          `<table xmlns="http://www.w3.org/1999/xhtml"><tr><td><ix:nonFraction name="core:CashBankOnHand" contextRef="end" unitRef="GBP" decimals="0">7</ix:nonFraction></td></tr></table>`,
        ),
      ),
    );
    expect(filing.current.cash?.amountMinor).toBe(700);
  });

  it('gives a prefix the meaning each document declares, however many documents declared it before', () => {
    const body = '<p><ix:nonFraction name="core:CashBankOnHand" contextRef="end" unitRef="GBP" decimals="0">12</ix:nonFraction></p>';
    const known = document(body);
    const unknown = document(body, 'xmlns:core="http://example.com/not-a-uk-taxonomy"');
    for (let round = 0; round < 3; round++) {
      expect(accepted(readFiling(NAME, known)).current.cash?.amountMinor).toBe(1200);
      expect(accepted(readFiling(NAME, unknown)).current.cash).toBeUndefined();
    }
  });
});

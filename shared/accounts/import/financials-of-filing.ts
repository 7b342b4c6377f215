import { canonicalJson } from '../../companies/company-store';
import { type AccountsFeed, FILED_MONEY_FIGURES, type FigureSource, type Financials, type PeriodFinancials } from '../../companies/profile';
import type { AccountsFiling, FactProvenance, FigureSet, PeriodFigures } from '../filing';

type Sources = Record<string, readonly FigureSource[]>;

const sourcesOf = (provenance: readonly FactProvenance[]): readonly FigureSource[] =>
  provenance.map(({ concept, contextId }) => ({ concept, contextId }));

function periodOf(figures: PeriodFigures, period: FigureSet, sources: Sources): PeriodFinancials {
  const out: Record<string, unknown> = { periodStart: figures.periodStart ?? null, periodEnd: figures.periodEnd };
  for (const figure of FILED_MONEY_FIGURES) {
    const value = figures[figure];
    if (!value) continue;
    out[figure] = { amountMinor: value.amountMinor, currency: value.currency };
    sources[`${period}.${figure}`] = sourcesOf(value.provenance);
  }
  if (figures.employees) {
    out.employees = figures.employees.count;
    sources[`${period}.employees`] = sourcesOf(figures.employees.provenance);
  }
  return out as PeriodFinancials;
}

/** The profile's record of one filing: its figures as filed, and where each was read. */
export function financialsOf(filing: AccountsFiling, archive: string, feed: AccountsFeed): Financials {
  const sources: Sources = {};
  const current = periodOf({ ...filing.current, periodStart: filing.current.periodStart ?? filing.periodStart }, 'current', sources);
  const prior = filing.prior ? periodOf(filing.prior, 'prior', sources) : undefined;
  const group = filing.group ? periodOf(filing.group, 'group', sources) : undefined;
  return {
    ...current,
    accountsType: filing.accountsType?.type ?? null,
    ...(prior ? { prior } : {}),
    ...(group ? { group } : {}),
    provenance: { source: feed, archive, entry: filing.entryName, format: filing.format, figures: sources },
  };
}

/** The figures without where they were read: what tells one filing's numbers from another's. */
export function figuresOnly(financials: Financials): string {
  const { provenance: _provenance, ...figures } = financials;
  return canonicalJson(figures);
}

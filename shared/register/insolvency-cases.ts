/**
 * Insolvency cases as Companies House types them (`cases[].type` of a company's insolvency
 * resource), told apart: a members' voluntary liquidation is a solvent winding up, its directors
 * having declared that the company can pay its debts in full within twelve months; every other
 * case (creditors' voluntary or compulsory liquidation, administration, receivership, a company
 * voluntary arrangement, a moratorium) is a company that cannot, or may not, pay its creditors.
 */

export const MEMBERS_VOLUNTARY_LIQUIDATION = 'members-voluntary-liquidation';

export const isSolventCase = (type: string) => type === MEMBERS_VOLUNTARY_LIQUIDATION;

/** Case types in words, for people; a type outside the list is spelt out from its code. */
const CASE_WORDS: Readonly<Record<string, string>> = {
  'compulsory-liquidation': 'compulsory liquidation',
  'creditors-voluntary-liquidation': "creditors' voluntary liquidation",
  'members-voluntary-liquidation': "members' voluntary liquidation",
  'in-administration': 'administration',
  administration: 'administration',
  'administration-order': 'administration order',
  'corporate-voluntary-arrangement': 'company voluntary arrangement',
  'corporate-voluntary-arrangement-moratorium': 'moratorium for a company voluntary arrangement',
  moratorium: 'moratorium',
  'receiver-manager': 'receiver manager',
  'administrative-receiver': 'administrative receivership',
  receivership: 'receivership',
  'foreign-insolvency': 'foreign insolvency proceedings',
};

export const caseWords = (type: string) => CASE_WORDS[type] ?? type.replace(/-/g, ' ');

/** Dates that open a case, and dates that close one (`cases[].dates[].type`). */
export const CASE_START_DATES: ReadonlySet<string> = new Set([
  'wound-up-on',
  'petitioned-on',
  'ordered-to-wind-up-on',
  'declaration-solvent-on',
  'administration-started-on',
  'instrumented-on',
  'voluntary-arrangement-started-on',
  'moratorium-started-on',
]);
export const CASE_END_DATES: ReadonlySet<string> = new Set([
  'concluded-winding-up-on',
  'dissolved-on',
  'due-to-be-dissolved-on',
  'case-end-on',
  'administration-ended-on',
  'administration-discharged-on',
  'voluntary-arrangement-ended-on',
  'moratorium-ended-on',
]);

/** One open case as the `stream.insolvency.openCases` fact lists it: `<type>:<start date>`. */
export interface OpenCase {
  readonly type: string;
  readonly startedOn: string | null;
}

/** Room the provenance gives one fact. */
const MAX_FACT_LENGTH = 500;

/** The fact's value: the open cases, space-separated (as many as a fact holds), or "none" once the register says none is open. */
export function openCasesText(cases: readonly OpenCase[]): string {
  if (cases.length === 0) return 'none';
  let text = cases
    .map((found) => `${found.type}:${found.startedOn ?? ''}`)
    .sort()
    .join(' ');
  while (text.length > MAX_FACT_LENGTH) text = text.slice(0, text.lastIndexOf(' '));
  return text;
}

/** The open cases a fact lists; undefined when the stream has said nothing of the company's cases. */
export function openCasesOf(text: string | null | undefined): OpenCase[] | undefined {
  if (!text) return undefined;
  if (text === 'none') return [];
  return text.split(' ').map((entry) => {
    const at = entry.lastIndexOf(':');
    const type = at < 0 ? entry : entry.slice(0, at);
    const startedOn = at < 0 ? '' : entry.slice(at + 1);
    return { type, startedOn: startedOn || null };
  });
}

/** The company's only open cases are members' voluntary liquidations: it is being wound up solvent. */
export function solventWindingUp(cases: readonly OpenCase[] | undefined): OpenCase | undefined {
  if (!cases || cases.length === 0 || !cases.every((found) => isSolventCase(found.type))) return undefined;
  return cases[0];
}

/** At least one insolvent case is open. */
export const hasInsolventCase = (cases: readonly OpenCase[] | undefined) => (cases ?? []).some((found) => !isSolventCase(found.type));

/**
 * Striking off as the filing history records it, by the notice's form type: a first Gazette notice
 * proposes to strike the company off (GAZ1 compulsory, GAZ1(A) on the company's own application);
 * the proposal is then discontinued (DISS40), suspended (DISS16(SOAD) compulsory, SOAS(A)
 * voluntary) or withdrawn by the company (DS02); a final notice (GAZ2, GAZ2(A)) says the company
 * has been dissolved. The latest notice is kept as `stream.gazette.notice`, "<type> <date>".
 */

export type NoticeMeaning = 'proposal' | 'settled' | 'dissolved';

const MEANINGS: Readonly<Record<string, NoticeMeaning>> = {
  GAZ1: 'proposal',
  'GAZ1(A)': 'proposal',
  DISS40: 'settled',
  'DISS16(SOAD)': 'settled',
  'SOAS(A)': 'settled',
  DS02: 'settled',
  GAZ2: 'dissolved',
  'GAZ2(A)': 'dissolved',
};

export const noticeMeaning = (type: string): NoticeMeaning | undefined => MEANINGS[type.toUpperCase()];

export interface Notice {
  readonly type: string;
  readonly date: string;
}

export function noticeOf(text: string | null | undefined): Notice | undefined {
  const [type, date] = (text ?? '').split(' ');
  return type && date ? { type, date } : undefined;
}

export const noticeText = (notice: Notice) => `${notice.type} ${notice.date}`;

const WORDS: Readonly<Record<NoticeMeaning, string>> = {
  proposal: 'proposal to strike off',
  settled: 'strike-off action discontinued or suspended',
  dissolved: 'dissolution',
};

/** "Gazette notice GAZ1 (proposal to strike off) of 2024-05-21". */
export function noticeWords(notice: Notice): string {
  const meaning = noticeMeaning(notice.type);
  return `Gazette notice ${notice.type}${meaning ? ` (${WORDS[meaning]})` : ''} of ${notice.date}`;
}

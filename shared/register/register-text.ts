/**
 * Text as a register publishes it, made safe to store and to show. Registers are typed in by
 * people and carried by feeds Bureau does not control: a name may hold terminal escape sequences
 * (ESC [ 31 m), control characters, or bidirectional overrides that make a name read differently
 * from what it is, and a resource may carry a field of any length. Every register text goes
 * through here before it reaches storage (the stream's event facts and every bulk reader), so a
 * text is bounded (one item stays within DynamoDB's 400 KB, a name-index key within its 1,024
 * bytes) and holds nothing that could act on a terminal or a page.
 */

/** How long a register text may be, in characters, by what it is. */
export const TEXT_LIMITS = {
  /** Companies House allows 160 characters for a company name; CRO fewer. */
  name: 160,
  /** One line of an address. */
  addressLine: 200,
  /** Any other text: a description, a label, an identifier. */
  text: 500,
} as const;

export type TextKind = keyof typeof TEXT_LIMITS;

/**
 * Escape sequences as terminals read them: CSI (ESC [ … final byte, or its one-byte form U+009B),
 * OSC, DCS, SOS, PM and APC strings (ESC ] … ended by BEL or ESC \), and the two-character escapes.
 */
const ESCAPE_SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|\u001b[\]PX^_][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -~]?/g;

/** Line and paragraph breaks, tabs and other separators: whitespace, read as one space. */
const SEPARATORS = /[\t\n\v\f\r\u0085\u2028\u2029\s]+/g;

/**
 * What is removed outright: C0 and C1 controls, DEL, zero-width characters and the marks that
 * steer bidirectional text (U+200B–U+200F, U+202A–U+202E, U+2066–U+2069, U+061C), the byte-order
 * mark, and surrogates that pair with nothing (no UTF-8 spells them).
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** True when a text may need cleaning: most register texts do not, and the test is cheaper than the replaces. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const SUSPECT = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]|\s\s|^\s|\s$/;

/** At most `max` characters, never cutting a character in two, with no space left at the cut. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  // A high surrogate at the cut would be half a character.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end).trimEnd();
}

/**
 * A register text cleaned and bounded: escape sequences, controls and invisible steering
 * characters removed, whitespace runs read as one space, trimmed, and cut at the kind's limit.
 * Empty comes back as empty: the caller decides whether that means absent.
 */
export function cleanText(value: string, kind: TextKind = 'text'): string {
  const max = TEXT_LIMITS[kind];
  // Work on no more than a bounded stretch: removals shrink a text, never grow it, so four times the limit is plenty.
  const head = value.length > max * 4 ? value.slice(0, max * 4) : value;
  if (!SUSPECT.test(head)) return bounded(head, max);
  const cleaned = head.replace(ESCAPE_SEQUENCES, '').replace(INVISIBLE, '').replace(SEPARATORS, ' ').trim();
  return bounded(cleaned, max);
}

const NAME_COLUMN = /^(CompanyName|company_name|PreviousName_\d+\.CompanyName)$/;
const ADDRESS_LINE_COLUMN = /^(RegAddress\.[A-Za-z0-9]+|company_address_\d|eircode)$/;
const kinds = new Map<string, TextKind>();

/** The kind of text a register column holds, by its name in either source; a whole address in one field is a text. */
export function textKindOf(column: string): TextKind {
  let kind = kinds.get(column);
  if (kind === undefined) {
    kind = NAME_COLUMN.test(column) ? 'name' : ADDRESS_LINE_COLUMN.test(column) ? 'addressLine' : 'text';
    if (kinds.size < 1_000) kinds.set(column, kind);
  }
  return kind;
}

/** A column's value as it may be stored: cleaned and bounded by what the column holds. */
export const cleanField = (column: string, value: string): string => cleanText(value, textKindOf(column));

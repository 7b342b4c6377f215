/**
 * A registered office as the register means it. The two sources cut the same address differently:
 * the API gives `premises` ("12") apart from `address_line_1` ("High Street"), where the bulk file's
 * `RegAddress.AddressLine1` holds both ("12 High Street"), and either may put a building's name on
 * a line of its own, write a comma the other leaves out, or change case. An address is therefore
 * compared as its words in order, whatever the lines, case or punctuation: a register retyping an
 * address has not moved it.
 */

/** The API's premises and first line as the bulk file's first line joins them. */
export function firstLineOf(premises: string | null, line1: string | null): string | null {
  if (premises && line1) return `${premises} ${line1}`;
  return premises ?? line1;
}

/** The address's words, in order, in capitals: what two spellings of one address share. */
export function addressKey(parts: readonly (string | null | undefined)[]): string {
  return parts
    .filter((part): part is string => Boolean(part))
    .join(' ')
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

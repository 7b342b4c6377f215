/** A query string that cannot be read as sent: the parameter is named so the client can fix it. */
export class MalformedQueryStringError extends Error {
  constructor(readonly parameter: string | undefined) {
    super(
      parameter === undefined
        ? 'The query string has a parameter name that is not valid percent-encoded UTF-8.'
        : `The value of ${parameter} is not valid percent-encoded UTF-8.`,
    );
    this.name = 'MalformedQueryStringError';
  }
}

/** Names echoed in errors are cut short: they are the client's own text and may be anything. */
const MAX_ECHOED_NAME_LENGTH = 40;

function decode(text: string): string | undefined {
  try {
    // decodeURIComponent refuses bad escapes and invalid UTF-8 (lone surrogates included) instead of
    // substituting U+FFFD, which URLSearchParams does silently.
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * Reads an application/x-www-form-urlencoded query string as URLSearchParams would, but refuses
 * malformed percent-encoding rather than searching for replacement characters.
 */
export function parseQueryString(raw: string): URLSearchParams {
  const params = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const name = decode(separator < 0 ? pair : pair.slice(0, separator));
    if (name === undefined) throw new MalformedQueryStringError(undefined);
    const value = separator < 0 ? '' : decode(pair.slice(separator + 1));
    if (value === undefined) throw new MalformedQueryStringError(name.slice(0, MAX_ECHOED_NAME_LENGTH));
    params.append(name, value);
  }
  return params;
}

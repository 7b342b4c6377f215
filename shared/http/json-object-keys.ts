/** JSON's four white-space characters (RFC 8259 §2). */
const WHITE_SPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * The member names of a JSON object's top level, in order and with repeats, read by a complete scan
 * of text that JSON.parse has already accepted: strings are read to their closing quote (escapes
 * included), and a string is a member name when the next character after any amount of white space
 * is a colon. JSON.parse keeps the last of repeated names silently; a request that names a field
 * twice is ambiguous and must be refused, not guessed.
 */
export function topLevelKeys(validJson: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let index = 0; index < validJson.length; index++) {
    const char = validJson[index];
    if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
    else if (char === '"') {
      const start = index;
      for (index++; validJson[index] !== '"'; index++) if (validJson[index] === '\\') index++;
      let next = index + 1;
      while (WHITE_SPACE.has(validJson[next] as string)) next++;
      if (depth === 1 && validJson[next] === ':') keys.push(JSON.parse(validJson.slice(start, index + 1)) as string);
    }
  }
  return keys;
}

/** The first member name that appears twice at the top level, if any. */
export function repeatedTopLevelKey(validJson: string): string | undefined {
  const seen = new Set<string>();
  for (const key of topLevelKeys(validJson)) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

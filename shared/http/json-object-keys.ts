/**
 * The member names of a JSON object's top level, in order and with repeats, read from text that
 * JSON.parse has already accepted. JSON.parse keeps the last of repeated names silently; a request
 * that names a field twice is ambiguous and must be refused, not guessed.
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
      if (depth === 1 && /^\s*:/.test(validJson.slice(index + 1, index + 64))) {
        keys.push(JSON.parse(validJson.slice(start, index + 1)) as string);
      }
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

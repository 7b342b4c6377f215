import { visit } from 'jsonc-parser';

/**
 * The member names of a JSON object's top level, in order and with repeats, read by a JSON tokenizer
 * from text that JSON.parse has already accepted. JSON.parse keeps the last of repeated names
 * silently; a request that names a field twice is ambiguous and must be refused, not guessed. A
 * tokenizer sees a name wherever its colon is, however much white space stands between them.
 */
export function topLevelKeys(validJson: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  visit(
    validJson,
    {
      onObjectBegin: () => {
        depth++;
      },
      onObjectEnd: () => {
        depth--;
      },
      onArrayBegin: () => {
        depth++;
      },
      onArrayEnd: () => {
        depth--;
      },
      onObjectProperty: (property) => {
        if (depth === 1) keys.push(property);
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
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

import { foldName } from '../companies/names';

/**
 * A lookup of register labels that ignores case, spacing and punctuation, as published labels
 * drift in both ("RECEIVERSHIP", "Receivership"). Folded lookups are remembered: a register has a
 * few dozen distinct labels and millions of rows.
 */
export function labelMap<T>(entries: readonly (readonly [string, T])[]): (label: string) => T | undefined {
  const byFolded = new Map(entries.map(([label, value]) => [foldName(label), value]));
  const seen = new Map<string, T | undefined>();
  return (label) => {
    if (seen.has(label)) return seen.get(label);
    const value = byFolded.get(foldName(label));
    if (seen.size < 10_000) seen.set(label, value);
    return value;
  };
}

/** A label mapping remembered per distinct label, for the same reason. */
export function remembered<T>(map: (label: string) => T): (label: string) => T {
  const seen = new Map<string, T>();
  return (label) => {
    const known = seen.get(label);
    if (known !== undefined) return known;
    const value = map(label);
    if (seen.size < 10_000) seen.set(label, value);
    return value;
  };
}

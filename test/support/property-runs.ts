/**
 * The fast-check options of a property test: a fixed seed, so a failure replays exactly (fast-check
 * prints the seed and the path that failed), and its usual number of runs, which PROPERTY_RUNS
 * replaces for every property at once: fewer for a quick pass, many more to search harder.
 */
export function propertyRuns(numRuns: number, seed: number): { readonly seed: number; readonly numRuns: number } {
  const raw = process.env.PROPERTY_RUNS?.trim();
  if (!raw) return { seed, numRuns };
  const runs = Number(raw);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`PROPERTY_RUNS must be a whole number of runs, 1 or more; got "${raw}"`);
  return { seed, numRuns: runs };
}

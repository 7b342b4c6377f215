/** Seeded randomness for demo data: the same key always gives the same sequence. */

/** 32-bit FNV-1a: spreads similar keys ("…0001", "…0002") over unrelated seeds. */
function hash32(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  weighted<T>(choices: readonly (readonly [T, number])[]): T;
}

/** mulberry32 seeded with a hash of the key: small, fast, and good enough for demo data. */
export function seededRandom(key: string): Random {
  let state = hash32(key);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    weighted: (choices) => {
      const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
      let point = next() * total;
      for (const [choice, weight] of choices) {
        point -= weight;
        if (point < 0) return choice;
      }
      return (choices[choices.length - 1] as (typeof choices)[number])[0];
    },
  };
  return random;
}

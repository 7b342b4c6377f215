const secondsPerUnit = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

export class InvalidDurationError extends Error {
  constructor(text: string) {
    super(`"${text}" is not a duration: use 0 or a whole number followed by s, m, h or d (e.g. 30m, 24h, 7d)`);
    this.name = 'InvalidDurationError';
  }
}

/** Parses an operator's duration such as 0, 90s, 30m, 24h or 7d into seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,9})([smhd])?$/.exec(text.trim());
  if (!match) throw new InvalidDurationError(text);
  const [, amount, unit] = match;
  const value = Number(amount);
  // A bare number is only unambiguous when it is zero.
  if (!unit && value !== 0) throw new InvalidDurationError(text);
  return value * secondsPerUnit[(unit ?? 's') as keyof typeof secondsPerUnit];
}

/** The inverse for messages: 86400 → "24h", 5400 → "90m", 0 → "0s". */
export function formatDuration(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

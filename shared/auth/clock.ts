/** Current time in epoch milliseconds; injected so tests can move time without waiting. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export const epochSeconds = (clock: Clock): number => Math.floor(clock() / 1000);

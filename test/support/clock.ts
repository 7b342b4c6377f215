/**
 * The start of the current minute, for a test's frozen clock. DynamoDB Local, like DynamoDB, deletes
 * an item about a second after its TTL attribute passes by the real clock: a frozen clock in the past
 * writes sessions, invitations, rate counters and log entries that are already expired, and they
 * vanish mid-test whenever the sweep runs. A clock that starts now keeps every TTL in the future, and
 * a minute's start keeps a file's calls in one rate-limit window.
 */
export const presentMinuteMs = (): number => Math.floor(Date.now() / 60_000) * 60_000;

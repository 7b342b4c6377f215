/**
 * How much of the register import's state machine runs at once (infra/constructs/register-import.ts),
 * kept apart from the construct so that `bureau preflight` can count it without loading the CDK.
 */

/**
 * Batches imported at once. Each writes with the import's default concurrency (4 batches of 25
 * profiles), so 8 keep the companies table well under a new on-demand table's 4,000 writes a second.
 */
export const BATCH_CONCURRENCY = 8;
/** Scan segments swept at once, for the same reason. */
export const SWEEP_CONCURRENCY = 8;

/**
 * How long DynamoDB Local has been away while the runtime ran. DynamoDB does not go away on AWS, so
 * the seconds an invocation spends waiting out a restart of the local engine (engine-restarts.ts)
 * are not its own work: a function's timeout is extended by them (functions.ts), as though the
 * engine had answered at once, instead of an API call answering 500 because a loaded machine took
 * longer than the function's timeout to start Java again.
 */
export class EngineOutages {
  private downSince: number | undefined;
  private completedMs = 0;

  constructor(private readonly now: () => number = Date.now) {}

  began(): void {
    this.downSince ??= this.now();
  }

  ended(): void {
    if (this.downSince === undefined) return;
    this.completedMs += this.now() - this.downSince;
    this.downSince = undefined;
  }

  /** Milliseconds the engine has been away in all, an outage under way included. */
  totalMs(): number {
    return this.completedMs + (this.downSince === undefined ? 0 : this.now() - this.downSince);
  }
}

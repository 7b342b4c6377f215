/** The command was asked for something it will not do as given: exit code 1, with the reason. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

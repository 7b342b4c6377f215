/** Where the CLI writes: the terminal, or a buffer in tests. Each call is one line. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

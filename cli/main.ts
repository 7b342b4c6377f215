import { Command, CommanderError } from 'commander';
import { JavaCompilerMissingError, JavaMissingError } from '../local/dynamodb-local';
import { ClientRegistryError } from '../shared/auth/client-registry';
import { UnknownSigningKeyError } from '../shared/auth/signing-keys';
import { InvalidRecoveryError, SubscriptionDisabledError } from '../shared/webhooks/deliveries';
import { DeliveryNotFoundError, InvalidAttemptCursorError } from '../shared/webhooks/delivery-log';
import { SubscriptionLimitError, SubscriptionNotFoundError } from '../shared/webhooks/subscription';
import { InvalidSubscriptionError, NothingToChangeError } from '../shared/webhooks/subscriptions';
import { EmailTakenError } from '../shared/workspace/people';
import { registerAccountsCommands } from './commands/accounts';
import { registerClientCommands } from './commands/clients';
import { registerCompanyCommands } from './commands/companies';
import { registerDrillCommand } from './commands/drill';
import { registerKeyCommands } from './commands/keys';
import { type PreflightDependencies, registerPreflightCommand } from './commands/preflight';
import { registerStreamCommands } from './commands/streams';
import { registerDeliveryCommands, registerWebhookCommands } from './commands/webhooks';
import { registerWorkspaceCommands } from './commands/workspace';
import type { CliContext, Target, TargetFactory, TargetOptions } from './context';
import type { CliIo } from './io';
import { resolveTarget, TargetError } from './target';
import { UsageError } from './usage-error';

export interface CliDependencies {
  readonly io: CliIo;
  /** Chooses and opens the target from the global options; tests pass their own tables. */
  readonly resolveTarget: TargetFactory;
  readonly env: NodeJS.ProcessEnv;
  /** Resolves webhook endpoint host names; tests give their own. */
  readonly resolveHost: (hostname: string) => Promise<string[]>;
  /** What `bureau preflight` calls AWS with and reads the stages from; tests give their own. */
  readonly preflight: PreflightDependencies;
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Exit codes: 0 success, 1 usage or a refused request (unknown client, bad input), 2 target or connection trouble. */
export const exitCodes = { ok: 0, usage: 1, target: 2 } as const;

function buildProgram(context: CliContext, io: CliIo): Command {
  const program = new Command('bureau')
    .description(
      'Operate Bureau: manage API clients, companies, signing keys and webhook subscriptions of the local runtime or of a deployed stack',
    )
    .option('--stack <name>', 'act on this deployed CloudFormation stack instead of the local runtime')
    .option('--region <region>', 'AWS region of the stack (default: from the AWS environment)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.trimEnd()),
      writeErr: (text) => io.err(text.trimEnd()),
    })
    .addHelpText(
      'after',
      `
Target:
  Without --stack, commands act on the local runtime (npm start) through .bureau/runtime.json
  (BUREAU_DATA_DIR moves .bureau); when it is not running, on its database directly.

Examples:
  $ bureau clients create --name "Acme Ltd"
  $ bureau clients list
  $ bureau --stack Bureau --region eu-west-2 clients rotate-secret cli_0123456789abcdef --grace 1h`,
    );
  // Each group registers itself here; subcommands inherit the output and exit settings above.
  registerClientCommands(program, context);
  registerCompanyCommands(program, context);
  registerAccountsCommands(program, context);
  registerKeyCommands(program, context);
  registerWebhookCommands(program, context);
  registerDeliveryCommands(program, context);
  registerWorkspaceCommands(program, context);
  registerStreamCommands(program, context);
  registerDrillCommand(program, context);
  registerPreflightCommand(program, context);
  return program;
}

function exitCodeOf(error: unknown, io: CliIo, env: NodeJS.ProcessEnv): number {
  // Commander has already printed its own message (usage errors) or the help text.
  if (error instanceof CommanderError) return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  const message = error instanceof Error ? error.message : String(error);
  if (
    error instanceof ClientRegistryError ||
    error instanceof UnknownSigningKeyError ||
    error instanceof InvalidSubscriptionError ||
    error instanceof NothingToChangeError ||
    error instanceof SubscriptionNotFoundError ||
    error instanceof SubscriptionLimitError ||
    error instanceof DeliveryNotFoundError ||
    error instanceof InvalidRecoveryError ||
    error instanceof SubscriptionDisabledError ||
    error instanceof InvalidAttemptCursorError ||
    error instanceof EmailTakenError ||
    error instanceof UsageError
  ) {
    io.err(`error: ${message}`);
    return exitCodes.usage;
  }
  if (error instanceof TargetError || error instanceof JavaMissingError || error instanceof JavaCompilerMissingError) {
    io.err(`error: ${message}`);
    return exitCodes.target;
  }
  // Anything else comes from the database or the network (unreachable endpoint, missing table, no credentials).
  io.err(`error: ${message}`);
  if (env.BUREAU_DEBUG && error instanceof Error && error.stack) io.err(error.stack);
  return exitCodes.target;
}

/**
 * Runs the CLI on the arguments after the program name and returns the exit code. The target is opened
 * only when a command needs it and is always closed afterwards.
 */
export async function run(argv: readonly string[], dependencies: Partial<CliDependencies> = {}): Promise<number> {
  const io = dependencies.io ?? processIo;
  const env = dependencies.env ?? process.env;
  const open = dependencies.resolveTarget ?? resolveTarget;
  let opened: Promise<Target> | undefined;
  let program: Command | undefined;
  const context: CliContext = {
    io,
    env,
    ...(dependencies.resolveHost ? { resolveHost: dependencies.resolveHost } : {}),
    ...(dependencies.preflight ? { preflight: dependencies.preflight } : {}),
    target: () => {
      opened ??= open((program?.opts() ?? {}) as TargetOptions);
      return opened;
    },
  };
  program = buildProgram(context, io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    return exitCodeOf(error, io, env);
  } finally {
    const target = await opened?.catch(() => undefined);
    await target?.close();
  }
}

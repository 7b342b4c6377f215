import { type Command, InvalidArgumentError } from 'commander';
import { isWellFormedClientId } from '../../shared/auth/client-registry';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoWorkspaceStore } from '../../shared/workspace/dynamo-workspace-store';
import { invitationLink } from '../../shared/workspace/invitation-link';
import { normalizeEmail } from '../../shared/workspace/people';
import type { CliContext } from '../context';
import { TargetError } from '../target';

function clientOption(text: string): string {
  if (!isWellFormedClientId(text)) throw new InvalidArgumentError('not a client id');
  return text;
}

function emailOption(text: string): string {
  const email = normalizeEmail(text);
  if (!email) throw new InvalidArgumentError('not an e-mail address');
  return email;
}

/** `bureau workspace …`: let people of a client company into its workspace. */
export function registerWorkspaceCommands(program: Command, context: CliContext): void {
  const workspace = program
    .command('workspace')
    .description("manage the people who use a client's workspace")
    .addHelpText(
      'after',
      `
Examples:
  $ bureau workspace invite --client cli_0123456789abcdef --email ops@acme.example
  $ bureau --stack Bureau --region eu-west-2 workspace invite --client cli_0123456789abcdef --email ops@acme.example

The link is printed, not e-mailed: send it to the person yourself. It works once, for 24 hours;
inviting the same address again issues a new link (the person keeps their passkeys).`,
    );

  workspace
    .command('invite')
    .description("print a one-time link that lets a person choose a password for the client's workspace")
    .requiredOption('--client <clientId>', 'the client the person works for', clientOption)
    .requiredOption('--email <address>', "the person's e-mail address (their sign-in name)", emailOption)
    .option('--json', 'print JSON')
    .action(async (options: { client: string; email: string; json?: boolean }) => {
      const target = await context.target();
      if (!target.workspaceOrigin) throw new TargetError(`${target.description} does not say where its workspace is served`);
      const client = await new DynamoClientRegistry(target.doc, target.tables.clients).get(options.client);
      if (!client) throw new TargetError(`There is no client ${options.client} in ${target.description}`);
      const { token, person, expiresAt } = await new DynamoWorkspaceStore(target.doc, target.tables.workspace).invite(
        client.clientId,
        options.email,
      );
      const link = invitationLink(target.workspaceOrigin, token);
      context.io.err('Send the link to the person yourself: anyone who opens it first can choose the password.');
      if (options.json) {
        context.io.out(JSON.stringify({ email: person.email, clientId: client.clientId, link, expiresAt }, null, 2));
        return;
      }
      context.io.out(`Invitation for ${person.email} to the workspace of "${client.name}" (${client.clientId})`);
      context.io.out(`link:    ${link}`);
      context.io.out(`expires: ${expiresAt} (works once)`);
    });
}

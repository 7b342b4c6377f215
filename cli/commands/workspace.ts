import { type Command, InvalidArgumentError } from 'commander';
import { isWellFormedClientId } from '../../shared/auth/client-registry';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoWorkspaceStore } from '../../shared/workspace/dynamo-workspace-store';
import { invitationLink } from '../../shared/workspace/invitation-link';
import { passkeyViewsOf } from '../../shared/workspace/passkeys';
import { normalizeEmail, type Person } from '../../shared/workspace/people';
import type { CliContext, Target } from '../context';
import { formatTable } from '../format';
import { TargetError } from '../target';
import { UsageError } from '../usage-error';

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
  $ bureau workspace passkeys list --email ops@acme.example
  $ bureau workspace passkeys remove --email ops@acme.example --all

The link is printed, not e-mailed: send it to the person yourself. It works once, for 24 hours;
inviting the same address again issues a new link. Following a link sets a new password, ends the
person's other sessions and removes every passkey they have.`,
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

  const passkeys = workspace.command('passkeys').description("list or remove a person's passkeys (a lost device, a suspected break-in)");

  passkeys
    .command('list')
    .description("list a person's passkeys: id, name, when added, when last used")
    .requiredOption('--email <address>', "the person's e-mail address", emailOption)
    .option('--json', 'print JSON')
    .action(async (options: { email: string; json?: boolean }) => {
      const { store, person } = await personOf(await context.target(), options.email);
      const views = passkeyViewsOf(await store.passkeysOf(person.personId));
      if (options.json) {
        context.io.out(JSON.stringify({ email: person.email, passkeys: views }, null, 2));
        return;
      }
      if (views.length === 0) {
        context.io.out(`${person.email} has no passkeys.`);
        return;
      }
      context.io.out(
        formatTable(
          ['ID', 'NAME', 'ADDED', 'LAST USED'],
          views.map((view) => [view.id, view.name, view.createdAt, view.lastUsedAt ?? 'never']),
        ),
      );
    });

  passkeys
    .command('remove')
    .description("remove one of a person's passkeys, or all of them; the person is not signed out")
    .requiredOption('--email <address>', "the person's e-mail address", emailOption)
    .option('--id <credentialId>', 'the passkey to remove, as `list` shows it')
    .option('--all', 'remove every passkey of the person')
    .option('--json', 'print JSON')
    .action(async (options: { email: string; id?: string; all?: boolean; json?: boolean }) => {
      if ((options.id === undefined) === (options.all === undefined))
        throw new UsageError('name the passkey with --id <credentialId>, or --all');
      const { store, person } = await personOf(await context.target(), options.email);
      const wanted = options.all ? (await store.passkeysOf(person.personId)).map((passkey) => passkey.credentialId) : [options.id ?? ''];
      const removed: string[] = [];
      for (const credentialId of wanted) {
        const passkey = await store.removePasskey(person.personId, credentialId, 'operator');
        if (!passkey) {
          if (options.all) continue;
          throw new UsageError(`${person.email} has no passkey ${credentialId}; \`bureau workspace passkeys list\` shows theirs`);
        }
        removed.push(credentialId);
        if (!options.json) context.io.out(`Removed passkey "${passkey.name ?? 'Passkey'}" (${credentialId}) of ${person.email}.`);
      }
      if (options.json) context.io.out(JSON.stringify({ email: person.email, removed }, null, 2));
      else if (removed.length === 0) context.io.out(`${person.email} had no passkeys.`);
    });
}

async function personOf(target: Target, email: string): Promise<{ store: DynamoWorkspaceStore; person: Person }> {
  const store = new DynamoWorkspaceStore(target.doc, target.tables.workspace);
  const person = await store.personByEmail(email);
  if (!person) throw new UsageError(`There is no person ${email} in ${target.description}`);
  return { store, person };
}

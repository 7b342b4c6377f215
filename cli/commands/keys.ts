import type { Command } from 'commander';
import { PublishedJwksStore } from '../../shared/auth/published-jwks-store';
import { JWKS_CACHE_SECONDS, KEY_SET_CACHE_SECONDS } from '../../shared/auth/token-policy';
import type { CliContext } from '../context';
import { formatTable } from '../format';
import { KeyRevocation } from '../operations/key-revocation';
import { TargetError } from '../target';

async function revocationOf(context: CliContext): Promise<KeyRevocation> {
  const target = await context.target();
  if (!target.signingKeys) throw new TargetError(`${target.description} names no signing key secret`);
  // No cache: what is published must be read as it is now.
  const jwks = new PublishedJwksStore(target.doc, target.tables.clients, { cacheSeconds: 0 });
  return new KeyRevocation({ vault: target.signingKeys, jwks });
}

const yesNo = (flag: boolean) => (flag ? 'yes' : 'no');

/** `bureau keys …`: see the token signing keys and revoke one at once after a leak. */
export function registerKeyCommands(program: Command, context: CliContext): void {
  const keys = program
    .command('keys')
    .description('see the access-token signing keys; revoke one that may have leaked')
    .addHelpText(
      'after',
      `
Examples:
  $ bureau keys list
  $ bureau keys revoke 3kYl0g2mZr8…
  $ bureau --stack Bureau --region eu-west-2 keys revoke 3kYl0g2mZr8…`,
    );

  keys
    .command('list')
    .description('list the signing keys: kid, creation time, whether it signs new tokens and whether verifiers accept it')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const all = await (await revocationOf(context)).list();
      if (options.json) {
        context.io.out(JSON.stringify(all, null, 2));
      } else if (all.length === 0) {
        context.io.out('No signing keys yet: the first one is made on the first start (locally) or the first rotation (AWS).');
      } else {
        context.io.out(
          formatTable(
            ['KID', 'CREATED', 'SIGNS NEW TOKENS', 'ACCEPTED'],
            all.map((key) => [key.kid, key.createdAt ?? '-', yesNo(key.current), yesNo(key.published)]),
          ),
        );
      }
    });

  keys
    .command('revoke')
    .description('remove a signing key at once: every token it signed is refused within a minute')
    .argument('<kid>', 'the key id, as in the kid header of its tokens and in bureau keys list')
    .option('--json', 'print JSON')
    .action(async (kid: string, options: { json?: boolean }) => {
      const result = await (await revocationOf(context)).revoke(kid);
      if (options.json) {
        context.io.out(JSON.stringify(result, null, 2));
        return;
      }
      context.io.out(`Revoked signing key ${result.revoked}: it is no longer published.`);
      context.io.out(`Every verifier refuses the tokens it signed within ${JWKS_CACHE_SECONDS} s.`);
      if (result.replacedCurrent) {
        context.io.out(`It was signing new tokens: key ${result.current} signs them now.`);
        context.io.out(
          `For up to ${KEY_SET_CACHE_SECONDS} s a token endpoint may still sign with the revoked key; such tokens are refused, and clients that request again get a working one.`,
        );
      }
    });
}

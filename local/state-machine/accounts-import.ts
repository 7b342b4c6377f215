import { readFileSync } from 'node:fs';
import { accountsImportFunctions } from '../../infra/catalogue';
import { type LocalRegisterImport, type LocalRegisterImportOptions, startLocalRegisterImport } from './register-import';
import type { StateMachineDefinition } from './register-import-definition';

/** The state machine's local name; its functions are the catalogue's, by their local ARNs. */
export const LOCAL_ACCOUNTS_IMPORT_NAME = 'bureau-accounts-import';
/** The functions the accounts import's state machine invokes; the download is the schedule's, not the state machine's. */
const STATE_MACHINE_FUNCTIONS = ['accountsSplit', 'accountsItem', 'accountsSummary'];

/** The definition the CDK synthesizes, written by `npm run state-machines` (docs/decisions/0010, 0011). */
export function accountsImportDefinition(): StateMachineDefinition {
  return JSON.parse(readFileSync(new URL('./accounts-import.asl.json', import.meta.url), 'utf8')) as StateMachineDefinition;
}

/**
 * The accounts import's state machine on this machine, as the register import's runs: the synthesized
 * definition, its functions in instances of their own with their catalogue grants, the uploads bucket
 * in fauxqs's S3 (the same bucket, under accounts/), behind the same Step Functions API.
 */
export function startLocalAccountsImport(options: Omit<LocalRegisterImportOptions, 'machine'>): Promise<LocalRegisterImport> {
  return startLocalRegisterImport({
    ...options,
    definition: options.definition ?? accountsImportDefinition(),
    machine: {
      functions: STATE_MACHINE_FUNCTIONS.map((specId) => {
        const spec = accountsImportFunctions.find((candidate) => candidate.id === specId);
        if (!spec) throw new Error(`The accounts import needs the ${specId} function`);
        return spec;
      }),
      name: LOCAL_ACCOUNTS_IMPORT_NAME,
      label: 'accounts import',
    },
  });
}

import { describe, expect, it } from 'vitest';
import { registerImportFunctions } from '../../infra/catalogue';
import { LOCAL_NAMES, synthesizedRegisterImportDefinition } from '../../infra/local-state-machines';
import { LOCAL_REGISTER_IMPORT, localFunctionArn, registerImportDefinition } from '../../local/state-machine/register-import-definition';

describe('the register import as the local runtime runs it', () => {
  it('is the definition the CDK synthesizes now, tokens resolved to local names (npm run state-machines writes it)', () => {
    expect(registerImportDefinition()).toEqual(synthesizedRegisterImportDefinition());
  });

  it('names the functions, bucket and account as the local runtime does', () => {
    expect(LOCAL_NAMES).toMatchObject({
      region: LOCAL_REGISTER_IMPORT.region,
      accountId: LOCAL_REGISTER_IMPORT.accountId,
      bucket: LOCAL_REGISTER_IMPORT.bucket,
    });
    for (const { id } of registerImportFunctions) expect(LOCAL_NAMES.functionArn(id)).toBe(localFunctionArn(id));
  });
});

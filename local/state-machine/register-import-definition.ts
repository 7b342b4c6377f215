import { readFileSync } from 'node:fs';
import { LOCAL_ACCOUNT_ID, localFunctionName } from '../functions';

/** A state machine in the Amazon States Language, read loosely: the interpreter checks what it runs. */
// biome-ignore lint/suspicious/noExplicitAny: ASL is JSON whose shape the interpreter checks as it runs it
export type StateMachineDefinition = { readonly StartAt: string; readonly States: Record<string, any> };

/**
 * The names CloudFormation's tokens resolve to locally, as infra/local-state-machines.ts writes them
 * into the definition file (a test holds the two equal).
 */
export const LOCAL_REGISTER_IMPORT = {
  region: 'eu-west-2',
  accountId: LOCAL_ACCOUNT_ID,
  /** The uploads bucket the runtime creates in fauxqs's S3. */
  bucket: 'bureau-register-uploads',
  stateMachineName: 'bureau-register-import',
} as const;

export const localFunctionArn = (specId: string): string =>
  `arn:aws:lambda:${LOCAL_REGISTER_IMPORT.region}:${LOCAL_REGISTER_IMPORT.accountId}:function:${localFunctionName({ id: specId })}`;

export const localStateMachineArn = (name: string = LOCAL_REGISTER_IMPORT.stateMachineName): string =>
  `arn:aws:states:${LOCAL_REGISTER_IMPORT.region}:${LOCAL_REGISTER_IMPORT.accountId}:stateMachine:${name}`;

/** The definition the CDK synthesizes, written by `npm run state-machines` (docs/decisions/0010). */
export function registerImportDefinition(): StateMachineDefinition {
  return JSON.parse(readFileSync(new URL('./register-import.asl.json', import.meta.url), 'utf8')) as StateMachineDefinition;
}

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BureauStack } from './stack';

/**
 * The names CloudFormation's tokens resolve to in the local runtime, which names its functions,
 * bucket and account so (local/state-machine/register-import-definition.ts; a test holds the two equal).
 */
export const LOCAL_NAMES = {
  region: 'eu-west-2',
  accountId: '000000000000',
  bucket: 'bureau-register-uploads',
  functionArn: (specId: string) => `arn:aws:lambda:eu-west-2:000000000000:function:bureau-${specId}`,
} as const;

// biome-ignore lint/suspicious/noExplicitAny: ASL read loosely; the local interpreter checks what it runs
export type StateMachineDefinition = { readonly StartAt: string; readonly States: Record<string, any> };

/**
 * npm run state-machines: writes the register import's and the accounts import's state machines, as
 * the CDK synthesizes them, to local/state-machine/*.asl.json for the local runtime to execute. The tokens of
 * the template are resolved the way CloudFormation resolves them on deploy, to the local runtime's
 * names: the functions' ARNs, the uploads bucket, the partition. Nothing else of the ASL is touched;
 * an infrastructure test synthesizes afresh and fails when the committed file differs.
 */
export const REGISTER_IMPORT_DEFINITION_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '../local/state-machine/register-import.asl.json',
);

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely
type Loose = any;

/** The stack as `npm run state-machines` synthesizes it, with no bundling. */
function synthesize(): { stack: BureauStack; template: Loose } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BureauStack(app, 'Local', { edge: { webAclArn: 'arn:aws:wafv2:us-east-1:000000000000:global/webacl/local/0' } });
  return { stack, template: Template.fromStack(stack).toJSON() };
}

interface SynthesizedMachine {
  readonly name: string;
  readonly stateMachine: { node: { defaultChild?: unknown } };
  readonly functions: ReadonlyMap<string, { node: { defaultChild?: unknown } }>;
  readonly bucket: { node: { defaultChild?: unknown } };
}

function definitionOf({ stack, template }: { stack: BureauStack; template: Loose }, machine: SynthesizedMachine): StateMachineDefinition {
  const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const functionIds = new Map([...machine.functions].map(([specId, fn]) => [logicalId(fn), specId]));
  const bucketId = logicalId(machine.bucket);

  const resolve = (token: Loose): string => {
    if (token.Ref === 'AWS::Partition') return 'aws';
    if (token.Ref === 'AWS::Region') return LOCAL_NAMES.region;
    if (token.Ref === 'AWS::AccountId') return LOCAL_NAMES.accountId;
    if (token.Ref === bucketId) return LOCAL_NAMES.bucket;
    const [id, attribute] = token['Fn::GetAtt'] ?? [];
    const specId = functionIds.get(id);
    if (specId && attribute === 'Arn') return LOCAL_NAMES.functionArn(specId);
    throw new Error(`The ${machine.name}'s definition names ${JSON.stringify(token)}, which the local runtime cannot resolve`);
  };
  const definitionString = template.Resources[logicalId(machine.stateMachine)].Properties.DefinitionString;
  const text =
    typeof definitionString === 'string'
      ? definitionString
      : (definitionString['Fn::Join'][1] as Loose[]).map((part) => (typeof part === 'string' ? part : resolve(part))).join('');
  return JSON.parse(text) as StateMachineDefinition;
}

const registerImportOf = (stack: BureauStack): SynthesizedMachine => ({ name: 'register import', ...stack.registerImport });
const accountsImportOf = (stack: BureauStack): SynthesizedMachine => ({
  name: 'accounts import',
  stateMachine: stack.accountsImport.stateMachine,
  functions: stack.accountsImport.functions,
  bucket: stack.registerImport.bucket,
});

export function synthesizedRegisterImportDefinition(): StateMachineDefinition {
  const synthesized = synthesize();
  return definitionOf(synthesized, registerImportOf(synthesized.stack));
}

/** The accounts import's state machine (infra/constructs/accounts-import.ts), resolved the same way. */
export function synthesizedAccountsImportDefinition(): StateMachineDefinition {
  const synthesized = synthesize();
  return definitionOf(synthesized, accountsImportOf(synthesized.stack));
}

export const ACCOUNTS_IMPORT_DEFINITION_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '../local/state-machine/accounts-import.asl.json',
);

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const synthesized = synthesize();
  for (const [path, machine] of [
    [REGISTER_IMPORT_DEFINITION_PATH, registerImportOf(synthesized.stack)],
    [ACCOUNTS_IMPORT_DEFINITION_PATH, accountsImportOf(synthesized.stack)],
  ] as const) {
    writeFileSync(path, `${JSON.stringify(definitionOf(synthesized, machine), null, 2)}\n`);
    console.log(`wrote ${path}`);
  }
}

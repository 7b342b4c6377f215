import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENCRYPTION_CONTEXT_KEYS, PURPOSE_CONTEXT, WEBHOOK_SECRETS_KEY_VARIABLE } from '../../shared/crypto/webhook-secrets-key';
import { WEBHOOK_SECRETS_ACTIONS, type WebhookSecretsAccess } from '../catalogue';

/** The key's alias: one per stage, as each stage is a stack of its own. */
export const webhookSecretsKeyAlias = (stackName: string): string => `alias/${stackName}/webhook-secrets`;

/**
 * The KMS key under which webhook signing secrets are envelope-encrypted at rest. Kept when the stack
 * is deleted (RETAIN): without it, no kept secret could be opened again. Rotated yearly by KMS. Its
 * alias names the stack, so an operator finds a stage's key in the console and in CloudTrail.
 */
export class WebhookSecretsKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Bureau: envelope encryption of webhook signing secrets',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
      alias: webhookSecretsKeyAlias(Stack.of(this).stackName),
    });
  }

  /**
   * The function's key variable, and exactly the actions it needs, only for data keys of this purpose
   * and with a context of no other names than the purpose and the client: the client in each data
   * key's context is what CloudTrail shows, and a key policy may narrow on.
   */
  grant(fn: LambdaFunction, access: WebhookSecretsAccess): void {
    fn.addEnvironment(WEBHOOK_SECRETS_KEY_VARIABLE, this.key.keyArn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: WEBHOOK_SECRETS_ACTIONS[access].map((action) => `kms:${action}`),
        resources: [this.key.keyArn],
        conditions: {
          StringEquals: Object.fromEntries(
            Object.entries(PURPOSE_CONTEXT).map(([name, value]) => [`kms:EncryptionContext:${name}`, value]),
          ),
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...ENCRYPTION_CONTEXT_KEYS] },
        },
      }),
    );
  }
}

import { Aws, Duration, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement, StarPrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { BureauFunction } from './bureau-function';

/** The variable that tells the token and rotation functions where the private key set lives. */
export const SIGNING_KEY_SECRET_ENV = 'SIGNING_KEY_SECRET_ID';

export interface SigningKeyProps {
  /** How often a new signing key replaces the current one. */
  readonly rotateEvery?: Duration;
}

/**
 * The Secrets Manager secret holding the private token-signing keys, encrypted with its own KMS key
 * so that only the principals granted here can decrypt it. The token function reads it; the rotation
 * function replaces it on a schedule and right after the first deployment, which creates the first key.
 */
export class SigningKey extends Construct {
  readonly key: Key;
  readonly secret: Secret;
  private readonly rotateEvery: Duration;
  /** Roles that read the private keys: the signing and rotating functions'. */
  private readonly readers: string[] = [];

  constructor(scope: Construct, id: string, props: SigningKeyProps = {}) {
    super(scope, id);
    this.rotateEvery = props.rotateEvery ?? Duration.days(30);
    this.key = new Key(this, 'Key', {
      description: 'Encrypts the Bureau token signing keys',
      enableKeyRotation: true,
    });
    this.secret = new Secret(this, 'Secret', {
      description: 'Bureau token signing keys (private JWK set), written only by the rotation function',
      encryptionKey: this.key,
    });
  }

  /** Lets the function read the private keys to sign tokens (GetSecretValue and Decrypt through Secrets Manager). */
  grantSign(fn: BureauFunction): void {
    this.secret.grantRead(fn);
    this.readers.push(fn.executionRole.roleArn);
    fn.addEnvironment(SIGNING_KEY_SECRET_ENV, this.secret.secretArn);
  }

  /**
   * A resource policy that refuses the private keys to every principal but the signing and rotating
   * functions and the administrators named in the stage (who run `bureau keys revoke`): an IAM
   * administrator with secretsmanager:GetSecretValue on * can no longer read them. Call once every
   * function is bound.
   */
  fenceOff(administratorRoleArns: readonly string[]): void {
    this.secret.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyTheSigningFunctionsAndKeyAdministrators',
        effect: Effect.DENY,
        principals: [new StarPrincipal()],
        actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue', 'secretsmanager:UpdateSecretVersionStage'],
        resources: ['*'],
        conditions: { StringNotEquals: { 'aws:PrincipalArn': [...this.readers, ...administratorRoleArns] } },
      }),
    );
  }

  /**
   * Makes the function the secret's rotation Lambda. The rotation schedule grants it the Secrets Manager
   * rotation actions on this secret and the key use it needs, and lets Secrets Manager invoke it.
   */
  rotateWith(fn: BureauFunction): void {
    this.secret.addRotationSchedule('Rotation', {
      rotationLambda: fn,
      automaticallyAfter: this.rotateEvery,
      rotateImmediatelyOnUpdate: true,
    });
    // Secrets Manager may invoke the rotation function for this secret only, not for another
    // account's or another secret (the confused-deputy guard the schedule's own permission lacks).
    for (const child of fn.node.children) {
      const permission = child.node.defaultChild ?? child;
      if (permission instanceof CfnPermission && permission.principal === 'secretsmanager.amazonaws.com') {
        permission.sourceAccount = Aws.ACCOUNT_ID;
        permission.sourceArn = this.secret.secretArn;
      }
    }
    this.readers.push(fn.executionRole.roleArn);
    fn.addEnvironment(SIGNING_KEY_SECRET_ENV, this.secret.secretArn);
    Validations.of(fn.executionRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'secretsmanager:GetRandomPassword, added by the rotation schedule, supports no resource-level permissions.',
    });
  }
}

import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  InvalidRequestException,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';

interface Version {
  value?: string;
  readonly stages: Set<string>;
}

const notFound = (message: string) => new ResourceNotFoundException({ message, $metadata: {} });

/**
 * The four Secrets Manager calls the signing-key code makes, with the service's version-stage
 * rules: a stage sits on one version at a time, and moving AWSCURRENT leaves AWSPREVIOUS behind.
 */
export class FakeSecretsManager {
  readonly versions = new Map<string, Version>();
  readonly calls: string[] = [];
  rotationEnabled = true;

  constructor(readonly secretId: string) {}

  get client(): SecretsManagerClient {
    return this as unknown as SecretsManagerClient;
  }

  /** A version holding a value, as created by the stack or an earlier rotation. */
  seed(versionId: string, value: string, stages: string[]): void {
    for (const stage of stages) this.detach(stage);
    this.versions.set(versionId, { value, stages: new Set(stages) });
  }

  /** What RotateSecret does before calling the rotation function: an empty AWSPENDING version. */
  startRotation(token: string): void {
    this.detach('AWSPENDING');
    this.versions.set(token, { stages: new Set(['AWSPENDING']) });
  }

  stagesOf(versionId: string): string[] {
    return [...(this.versions.get(versionId)?.stages ?? [])].sort();
  }

  valueAt(stage: string): string | undefined {
    return [...this.versions.values()].find((version) => version.stages.has(stage))?.value;
  }

  /** While set, every call fails as an unreachable endpoint does. */
  unreachable = false;

  async send(command: unknown): Promise<unknown> {
    this.calls.push((command as object).constructor.name);
    if (this.unreachable) throw Object.assign(new Error('connect ETIMEDOUT'), { name: 'TimeoutError' });
    if (command instanceof DescribeSecretCommand) return this.describe(command);
    if (command instanceof GetSecretValueCommand) return this.getValue(command);
    if (command instanceof PutSecretValueCommand) return this.putValue(command);
    if (command instanceof UpdateSecretVersionStageCommand) return this.updateStage(command);
    throw new Error(`The fake does not support ${(command as object).constructor.name}`);
  }

  private checkId(secretId: string | undefined): void {
    if (secretId !== this.secretId) throw notFound(`Secret ${secretId} not found`);
  }

  private describe(command: DescribeSecretCommand) {
    this.checkId(command.input.SecretId);
    const versionIdsToStages: Record<string, string[]> = {};
    for (const [id, version] of this.versions) if (version.stages.size > 0) versionIdsToStages[id] = [...version.stages];
    return { ARN: this.secretId, RotationEnabled: this.rotationEnabled, VersionIdsToStages: versionIdsToStages };
  }

  private getValue(command: GetSecretValueCommand) {
    this.checkId(command.input.SecretId);
    const { VersionId: versionId, VersionStage: stage } = command.input;
    const entry = versionId
      ? ([versionId, this.versions.get(versionId)] as const)
      : [...this.versions.entries()].find(([, version]) => version.stages.has(stage ?? 'AWSCURRENT'));
    const version = entry?.[1];
    if (!entry || !version || version.value === undefined || (stage && !version.stages.has(stage))) {
      throw notFound("Secrets Manager can't find the specified secret value");
    }
    return { ARN: this.secretId, VersionId: entry[0], SecretString: version.value, VersionStages: [...version.stages] };
  }

  private putValue(command: PutSecretValueCommand) {
    this.checkId(command.input.SecretId);
    const { ClientRequestToken: token, SecretString: value, VersionStages: stages = ['AWSCURRENT'] } = command.input;
    if (!token || value === undefined) throw new InvalidRequestException({ message: 'token and value required', $metadata: {} });
    const existing = this.versions.get(token);
    if (existing?.value !== undefined && existing.value !== value) {
      throw new InvalidRequestException({ message: 'A version with this token already exists with another value', $metadata: {} });
    }
    const previousCurrent = stages.includes('AWSCURRENT') ? this.holderOf('AWSCURRENT') : undefined;
    for (const stage of stages) this.detach(stage);
    if (previousCurrent && previousCurrent !== token) {
      this.detach('AWSPREVIOUS');
      this.versions.get(previousCurrent)?.stages.add('AWSPREVIOUS');
    }
    this.versions.set(token, { value, stages: new Set([...(existing?.stages ?? []), ...stages]) });
    return { ARN: this.secretId, VersionId: token, VersionStages: stages };
  }

  private updateStage(command: UpdateSecretVersionStageCommand) {
    this.checkId(command.input.SecretId);
    const { VersionStage: stage, MoveToVersionId: to, RemoveFromVersionId: from } = command.input;
    if (stage && !to && from) {
      // Removing a label without moving it anywhere; AWSCURRENT can only be moved.
      if (stage === 'AWSCURRENT' || !this.versions.get(from)?.stages.has(stage)) {
        throw new InvalidRequestException({ message: `${stage} is not attached to ${from}`, $metadata: {} });
      }
      this.versions.get(from)?.stages.delete(stage);
      return { ARN: this.secretId };
    }
    if (!stage || !to || !this.versions.has(to))
      throw new InvalidRequestException({ message: 'stage and target version required', $metadata: {} });
    const holder = [...this.versions.entries()].find(([, version]) => version.stages.has(stage))?.[0];
    if (holder && holder !== to && holder !== from) {
      throw new InvalidRequestException({ message: `${stage} is attached to ${holder}; name it in RemoveFromVersionId`, $metadata: {} });
    }
    if (holder && holder !== to) {
      this.versions.get(holder)?.stages.delete(stage);
      if (stage === 'AWSCURRENT') {
        this.detach('AWSPREVIOUS');
        this.versions.get(holder)?.stages.add('AWSPREVIOUS');
      }
    }
    this.versions.get(to)?.stages.add(stage);
    if (stage === 'AWSCURRENT') this.versions.get(to)?.stages.delete('AWSPENDING');
    return { ARN: this.secretId };
  }

  private holderOf(stage: string): string | undefined {
    return [...this.versions.entries()].find(([, version]) => version.stages.has(stage))?.[0];
  }

  private detach(stage: string): void {
    for (const version of this.versions.values()) version.stages.delete(stage);
  }
}

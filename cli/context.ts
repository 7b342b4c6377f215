import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeySetVault } from '../shared/auth/signing-keys';
import type { SecretSealer } from '../shared/crypto/secret-sealer';
import type { PreflightDependencies } from './commands/preflight';
import type { CliIo } from './io';
import type { MetricSender } from './redrive-metric';
import type { RegisterImportTarget } from './register-import-run';

/** Physical table names of the target, by table id. */
export interface TargetTables {
  readonly clients: string;
  readonly companies: string;
  readonly watches: string;
  readonly webhooks: string;
  readonly deliveries: string;
  readonly workspace: string;
  /** Each client's events (GET /v1/events); absent on a target that names none. */
  readonly events?: string;
  /** The register streams' checkpoints and set-aside events; absent on a target that names none. */
  readonly registerStreams?: string;
}

/** The pipeline's queues and dead-letter queues: where tests, retries and redrives are sent. */
export interface TargetQueues {
  readonly sqs: SQSClient;
  readonly deliveries: string;
  readonly deliveriesDeadLetter: string;
  readonly fanout?: string;
  readonly fanoutDeadLetter?: string;
}

/** The deployment a command acts on: a deployed stack, or the local runtime's database. */
export interface Target {
  readonly doc: DynamoDBDocumentClient;
  readonly tables: TargetTables;
  /** The private signing keys: the local key file, or the stack's secret. Absent when the target names none. */
  readonly signingKeys?: KeySetVault;
  /** Absent when the target has none to offer: the local runtime is not running. */
  readonly queues?: TargetQueues;
  /** Seals and opens webhook signing secrets: the local key file, or the stack's KMS key. */
  readonly sealer: SecretSealer;
  /** Where operator metrics are published: a deployed stack's CloudWatch. Absent locally, where they are printed only. */
  readonly cloudWatch?: MetricSender;
  /** Webhook endpoints may be loopback receivers: the local runtime only. */
  readonly loopbackReceivers: boolean;
  /** Where the workspace is served, for the links the CLI prints; absent when the target does not say. */
  readonly workspaceOrigin?: string;
  /** A deployed stack's register import (bucket and state machine); absent locally and on stacks deployed before it. */
  readonly registerImport?: RegisterImportTarget;
  /** Where recorded stream lines are published into the local runtime's register streams; absent elsewhere. */
  readonly registerStreamsReplay?: { readonly url: string; readonly token: string };
  /** Says what the target is, for messages. */
  readonly description: string;
  close(): Promise<void>;
}

/** Global options that choose the target. */
export interface TargetOptions {
  readonly stack?: string;
  readonly region?: string;
}

export type TargetFactory = (options: TargetOptions) => Promise<Target>;

/**
 * What command groups receive. The target is resolved on first use, so `--help` and argument errors
 * never start a database or call AWS; the program closes it after the command.
 */
export interface CliContext {
  readonly io: CliIo;
  /** The environment the CLI runs in: where credentials a command must not take on its command line come from. */
  readonly env: NodeJS.ProcessEnv;
  target(): Promise<Target>;
  /** How webhook endpoint host names are resolved; the system resolver unless a test gives its own. */
  readonly resolveHost?: (hostname: string) => Promise<string[]>;
  /** The AWS clients and stages `bureau preflight` reads; the SDK's and infra/stages.json unless a test gives its own. */
  readonly preflight?: PreflightDependencies;
}

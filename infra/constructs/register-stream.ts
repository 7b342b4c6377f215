import { Duration, Validations } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, StarPrincipal } from 'aws-cdk-lib/aws-iam';
import { type CfnSecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { HANDOVER_SECONDS_VARIABLE, STREAM_KEY_SECRET_VARIABLE, STREAMS_VARIABLE } from '../../shared/register/stream/consumer-config';
import type { StreamName } from '../../shared/register/stream/stream-events';
import type { Alarms } from './alarms';
import type { BureauFunction } from './bureau-function';

/**
 * Each stream's invocation starts every 14 minutes and runs up to 15 (the function's timeout), so
 * the next one is already waiting on the stream's lease when this one lets go: one connection per
 * stream, handed over every 14 minutes with a gap of a lease poll and a TLS handshake, never three.
 */
export const STREAM_SCHEDULE = Duration.minutes(14);
/** Stop reading this long before the timeout: time to close, write the checkpoint, release the lease. */
export const STREAM_HANDOVER = Duration.seconds(30);
/** A tick that could not start within this long is overtaken by the next one: never queue it behind. */
const STREAM_TICK_MAX_AGE = Duration.minutes(5);

export interface RegisterStreamProps {
  readonly fn: BureauFunction;
  readonly streams: readonly StreamName[];
  readonly alarms: Alarms;
}

/**
 * The Companies House streams on AWS: the stream key's secret (created empty; the operator puts the
 * key), one EventBridge schedule per stream invoking the consumer function with the stream's name,
 * and the stream alarms. The function reaches Companies House over Lambda's own internet access:
 * the streams are public, and the key is not tied to an address unless the operator restricts it.
 */
export class RegisterStream extends Construct {
  readonly secret: Secret;
  readonly rules: ReadonlyMap<StreamName, Rule>;

  constructor(scope: Construct, id: string, props: RegisterStreamProps) {
    super(scope, id);
    const { fn } = props;
    this.secret = new Secret(this, 'StreamKey', {
      description: 'Companies House streaming API key: put by the operator (docs/deploy.md), read only by the stream consumer',
    });
    // Created without a value: a generated one would be sent to Companies House as a key, and refused.
    (this.secret.node.defaultChild as CfnSecret).addPropertyDeletionOverride('GenerateSecretString');
    // Only the consumer reads the key: no administrator's GetSecretValue on * reaches it. Putting a new key stays open.
    this.secret.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyTheStreamConsumerReads',
        effect: Effect.DENY,
        principals: [new StarPrincipal()],
        actions: ['secretsmanager:GetSecretValue'],
        resources: ['*'],
        conditions: { StringNotEquals: { 'aws:PrincipalArn': fn.executionRole.roleArn } },
      }),
    );
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Companies House issues the streaming key in its developer hub, where only a person can replace it: rotation is the operator step in docs/operations.md.',
    });
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.secret.secretArn] }));
    fn.addEnvironment(STREAM_KEY_SECRET_VARIABLE, this.secret.secretArn);
    fn.addEnvironment(HANDOVER_SECONDS_VARIABLE, String(STREAM_HANDOVER.toSeconds()));
    fn.addEnvironment(STREAMS_VARIABLE, props.streams.join(','));
    // A failed run is followed by the next tick within 14 minutes; a retry on top would only crowd the lease.
    fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: STREAM_TICK_MAX_AGE });

    const rules = new Map<StreamName, Rule>();
    for (const stream of props.streams) {
      rules.set(
        stream,
        new Rule(this, `Schedule-${stream}`, {
          description: `Bureau: consumes the Companies House ${stream} stream, one invocation every ${STREAM_SCHEDULE.toMinutes()} minutes`,
          schedule: Schedule.rate(STREAM_SCHEDULE),
          targets: [
            new LambdaFunction(fn, {
              event: RuleTargetInput.fromObject({ stream }),
              maxEventAge: STREAM_TICK_MAX_AGE,
              retryAttempts: 2,
            }),
          ],
        }),
      );
    }
    this.rules = rules;
    props.alarms.watchRegisterStreams(props.streams);
    const timeout = fn.timeout ?? Duration.minutes(15);
    props.alarms.runsToDeadline(fn, Duration.seconds(timeout.toSeconds() - STREAM_HANDOVER.toSeconds() / 2));
  }
}

import { Duration } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface AlarmsProps {
  /** Subscribed to the alarm topic when given. */
  readonly email?: string;
}

const period = Duration.minutes(5);

/**
 * Operator alarms, published to one encrypted SNS topic. Any function error or API 5xx alarms: a
 * client can never cause a 5xx, so each one is a defect or an outage worth a look.
 */
export class Alarms extends Construct {
  readonly topic: Topic;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: AlarmsProps = {}) {
    super(scope, id);
    const key = new Key(this, 'TopicKey', { description: 'Encrypts Bureau alarm notifications', enableKeyRotation: true });
    // CloudWatch publishes to an encrypted topic only if it may use the topic's key.
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Topic', { displayName: 'Bureau alarms', masterKey: key, enforceSSL: true });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    this.action = new SnsAction(this.topic);
  }

  watchFunction(fn: IFunction): void {
    this.add(`${fn.node.id}Errors`, fn.metricErrors({ period, statistic: 'Sum' }), `The ${fn.node.id} function failed`);
  }

  /** A message parked in a dead-letter queue is a delivery or fan-out that needs an operator. */
  watchDeadLetterQueue(id: string, queue: IQueue, what: string): void {
    this.add(
      `${id}DeadLetters`,
      queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      `${what} waits in a dead-letter queue: see docs/operations.md, "Redriving deliveries"`,
    );
  }

  /** Change events run late when the detector falls this far behind the companies stream. */
  watchStreamAge(fn: IFunction, maxAgeSeconds: number): void {
    const alarm = new Alarm(this, `${fn.node.id}IteratorAge`, {
      metric: fn.metric('IteratorAge', { period, statistic: 'Maximum' }),
      threshold: maxAgeSeconds * 1000,
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `The ${fn.node.id} function is more than ${maxAgeSeconds} s behind the companies stream`,
    });
    alarm.addAlarmAction(this.action);
  }

  watchApi(stage: HttpStage): void {
    this.add('Api5xx', stage.metricServerError({ period, statistic: 'Sum' }), 'The API answered with a 5xx status');
  }

  private add(id: string, metric: Metric, description: string): void {
    const alarm = new Alarm(this, id, {
      metric,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(this.action);
  }
}

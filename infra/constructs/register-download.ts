import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DOWNLOAD_URL_VARIABLE, STATE_MACHINE_VARIABLE } from '../../shared/register/import/register-download';
import type { BureauFunction } from './bureau-function';

/**
 * Mondays at 05:30 UTC. CRO publishes no stream, so its file is the IE feed: weekly keeps IE profiles
 * at most a week behind the register (its facts are dates and statuses that move over days, and each
 * profile says its snapshot date), while the sweep after each whole snapshot scans the entire
 * companies table, about $0.55 a run at the full registers' size. Early Monday, so the week starts
 * on fresh data and the import ends before Irish working hours.
 */
export const CRO_IMPORT_SCHEDULE = 'cron(30 5 ? * MON *)';

export interface RegisterDownloadProps {
  readonly fn: BureauFunction;
  readonly stateMachine: IStateMachine;
  /** The CRO companies file (https); null leaves the function unscheduled. */
  readonly url: string | null;
}

/**
 * The scheduled IE re-import: an EventBridge rule runs the download function, which fetches the CRO
 * companies file into the uploads bucket and starts the register import's state machine on it, the
 * way `bureau companies import --stack` does for an operator. The function reaches the portal over
 * Lambda's own internet access: a public file needs no fixed addresses.
 */
export class RegisterDownload extends Construct {
  readonly rule?: Rule;

  constructor(scope: Construct, id: string, props: RegisterDownloadProps) {
    super(scope, id);
    props.fn.addEnvironment(STATE_MACHINE_VARIABLE, props.stateMachine.stateMachineArn);
    props.stateMachine.grantStartExecution(props.fn);
    if (props.url === null) return;
    props.fn.addEnvironment(DOWNLOAD_URL_VARIABLE, props.url);
    this.rule = new Rule(this, 'Schedule', {
      description: 'Bureau: weekly re-import of the CRO companies file (the IE feed)',
      schedule: Schedule.expression(CRO_IMPORT_SCHEDULE),
      // A week's run that cannot start within hours is better skipped than run into working hours.
      targets: [new LambdaFunction(props.fn, { maxEventAge: Duration.hours(2), retryAttempts: 4 })],
    });
  }
}

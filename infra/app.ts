import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildStage } from './bureau-app';
import { chosenStage } from './stage-choice';
import { stageSettings } from './stage-settings';

/**
 * The CDK app. `-c stage=<name>` picks a stage of infra/stages.json (default dev: prod only by name), which holds
 * everything that differs between deployments; nothing else is read from the command line, so a
 * redeploy cannot drop a setting. Three stacks (infra/bureau-app): the service in the stage's
 * region, and before and after it what CloudFront needs from and keeps in us-east-1. The account is
 * left to the deploying credentials, so synth needs no AWS account.
 */
const app = new App();
const settings = stageSettings(chosenStage(app.node.tryGetContext('stage')));
buildStage(app, settings, process.env.CDK_DEFAULT_ACCOUNT);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();

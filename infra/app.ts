import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BureauStack } from './stack';
import { stageSettings } from './stage-settings';

/**
 * The CDK app. `-c stage=<name>` picks a stage of infra/stages.json (default prod), which holds
 * everything that differs between deployments; nothing else is read from the command line, so a
 * redeploy cannot drop a setting. The stack is environment-agnostic, so synth needs no AWS account.
 */
const app = new App();
const stage = (app.node.tryGetContext('stage') as string | undefined) ?? 'prod';
const settings = stageSettings(stage);

new BureauStack(app, settings.stackName, { settings });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();

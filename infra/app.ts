import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BureauEdgeStack } from './edge-stack';
import { BureauStack } from './stack';
import { chosenStage } from './stage-choice';
import { stageSettings } from './stage-settings';

/**
 * The CDK app. `-c stage=<name>` picks a stage of infra/stages.json (default dev: prod only by name), which holds
 * everything that differs between deployments; nothing else is read from the command line, so a
 * redeploy cannot drop a setting. Two stacks: the service in the stage's region, and what CloudFront
 * needs from us-east-1 (the web ACL, the certificate). The account is left to the deploying
 * credentials, so synth needs no AWS account.
 */
const app = new App();
const stage = chosenStage(app.node.tryGetContext('stage'));
const settings = stageSettings(stage);
const account = process.env.CDK_DEFAULT_ACCOUNT;

const edge = new BureauEdgeStack(app, `${settings.stackName}-edge`, {
  env: { account },
  edge: settings.edge,
  logRetention: settings.accessLogRetentionDays,
});
new BureauStack(app, settings.stackName, {
  env: { account, region: settings.region },
  crossRegionReferences: true,
  settings,
  edge: {
    webAclArn: edge.firewall.webAcl.attrArn,
    webAclName: edge.firewall.name,
    ...(edge.certificate ? { certificate: edge.certificate } : {}),
  },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();

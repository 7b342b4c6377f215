import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BureauStack } from './stack';

/**
 * The CDK app. Context: `stage` names the stack (default Bureau), `tokenIssuer` and `tokenAudience`
 * set the token claims, `alarmEmail` subscribes an address to the alarms. The stack is
 * environment-agnostic, so synth needs no AWS account.
 */
const app = new App();
const context = (key: string): string | undefined => app.node.tryGetContext(key) ?? undefined;

new BureauStack(app, context('stage') ?? 'Bureau', {
  tokenIssuer: context('tokenIssuer'),
  tokenAudience: context('tokenAudience'),
  alarmEmail: context('alarmEmail'),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();

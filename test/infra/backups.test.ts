import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { BureauStack } from '../../infra/stack';
import { StageSettingsError, stageSettings } from '../../infra/stage-settings';
import { allTables, clientsTable, companiesTable, webhooksTable, workspaceTable } from '../../shared/storage/tables';
import { defaultServiceStack } from '../support/service-stack';
import { TEST_WEB_ACL } from '../support/web-acl';

const COPY_VAULT = 'arn:aws:backup:eu-west-2:210987654321:backup-vault:bureau-copies';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

const ofType = (template: Template, type: string) =>
  Object.values(template.toJSON().Resources as Resources).filter((resource) => resource.Type === type);

/** The properties of the template's one resource of this type. */
function onlyOf(template: Template, type: string): Record<string, unknown> {
  const found = ofType(template, type);
  expect(found, type).toHaveLength(1);
  return (found[0] as Resources[string]).Properties;
}

describe('table backups', () => {
  it('back up clients, webhooks and workspace daily into an encrypted vault, kept 35 days, and copy nowhere by default', () => {
    const { template, stack, logicalId } = defaultServiceStack();

    expect(onlyOf(template, 'AWS::Backup::BackupVault').EncryptionKeyArn).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^BackupsVaultKey/), 'Arn'],
    });
    template.hasResourceProperties('AWS::KMS::Key', { Description: Match.stringLikeRegexp('backup'), EnableKeyRotation: true });

    const rules = (onlyOf(template, 'AWS::Backup::BackupPlan').BackupPlan as { BackupPlanRule: Record<string, unknown>[] }).BackupPlanRule;
    expect(rules).toEqual([
      expect.objectContaining({
        RuleName: 'Daily',
        ScheduleExpression: 'cron(0 3 * * ? *)',
        Lifecycle: { DeleteAfterDays: 35 },
      }),
    ]);
    expect(rules[0]).not.toHaveProperty('CopyActions');

    const chosen = (onlyOf(template, 'AWS::Backup::BackupSelection').BackupSelection as { Resources: { 'Fn::GetAtt': [string, string] }[] })
      .Resources;
    const backedUp = [clientsTable, webhooksTable, workspaceTable].map((definition) => logicalId(stack.tables.of(definition)));
    expect(chosen.map((resource) => resource['Fn::GetAtt'][0]).sort()).toEqual(backedUp.sort());
    expect(chosen.map((resource) => resource['Fn::GetAtt'][0])).not.toContain(logicalId(stack.tables.of(companiesTable)));
    expect(allTables.length - chosen.length).toBe(5);
  });

  it("copies every backup to the stage's destination vault, kept as long, and passes cdk-nag", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new BureauStack(app, 'Copied', { edge: { webAclArn: TEST_WEB_ACL }, settings: { backupCopyVaultArn: COPY_VAULT } });
    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: {
        BackupPlanRule: [
          Match.objectLike({ CopyActions: [{ DestinationBackupVaultArn: COPY_VAULT, Lifecycle: { DeleteAfterDays: 35 } }] }),
        ],
      },
    });
    expect(new AwsSolutionsChecks().validateScope(stack).violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('reads the destination vault from the stage settings, absent unless given, and refuses what is not a vault ARN', () => {
    const stages = (extra: Record<string, unknown>) =>
      JSON.stringify({
        dev: {
          stackName: 'Bureau-dev',
          tokenIssuer: 'https://dev.bureau.example',
          tokenAudience: 'bureau-api',
          production: false,
          alarms: { emails: [], topicArns: [] },
          apiThrottle: { rateLimit: 50, burstLimit: 100 },
          functionLogRetentionDays: 14,
          accessLogRetentionDays: 30,
          signingKeyRotationDays: 30,
          signingKeyAdministrators: [],
          region: 'eu-west-2',
          edge: {
            domainName: null,
            hostedZone: null,
            certificateArn: null,
            requestsPerAddressPer5Minutes: 1500,
            signInsPerAddressPer5Minutes: 100,
            originSecretRevision: 1,
          },
          egress: { fixedAddresses: false, addresses: 2, ports: [443] },
          ...extra,
        },
      });

    expect(stageSettings('dev', stages({}))).not.toHaveProperty('backupCopyVaultArn');
    expect(stageSettings('dev', stages({ backupCopyVaultArn: null }))).not.toHaveProperty('backupCopyVaultArn');
    expect(stageSettings('dev', stages({ backupCopyVaultArn: COPY_VAULT })).backupCopyVaultArn).toBe(COPY_VAULT);
    expect(() => stageSettings('dev', stages({ backupCopyVaultArn: 'bureau-copies' }))).toThrow(StageSettingsError);
    expect(() => stageSettings('dev', stages({ backupCopyVaultArn: 'bureau-copies' }))).toThrow(/backupCopyVaultArn/);
  });
});

import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { clientsTable, type TableDefinition, webhooksTable, workspaceTable } from '../../shared/storage/tables';
import type { BureauTables } from './tables';

/**
 * What no one can rebuild: client credentials, webhook subscriptions with their sealed signing secrets,
 * and the workspace's people and passkeys. The companies table is left out on purpose: it is derived
 * from the registers and rebuilt by re-importing them (docs/deploy.md, "What it costs"); the others
 * (watches, deliveries, events, registerStreams) come back with use or expire within 30 days, and
 * point-in-time recovery covers every table for 35 days.
 */
export const BACKED_UP_TABLES: readonly TableDefinition[] = [clientsTable, webhooksTable, workspaceTable];

/** How long each daily backup, and each copy of it, is kept: as far back as point-in-time recovery reaches, and then some. */
export const BACKUP_RETENTION = Duration.days(35);

/** 03:00 UTC, after the night's register import has usually settled and before Europe's working day. */
export const BACKUP_SCHEDULE = Schedule.cron({ minute: '0', hour: '3' });

export interface TableBackupsProps {
  readonly tables: BureauTables;
  /** A vault in another account (or region) that receives a copy of every backup; none when absent. */
  readonly copyToVaultArn?: string;
}

/**
 * A daily AWS Backup plan for the tables of BACKED_UP_TABLES into a vault of the stage's own, encrypted
 * under a customer-managed key (a copy out of the account needs one). Point-in-time recovery already
 * covers 35 days in place; these backups survive the table's deletion, and the optional copy survives
 * the account's compromise.
 */
export class TableBackups extends Construct {
  readonly vault: BackupVault;
  readonly plan: BackupPlan;

  constructor(scope: Construct, id: string, props: TableBackupsProps) {
    super(scope, id);
    const key = new Key(this, 'VaultKey', {
      description: 'Bureau: encryption of the table backups in the backup vault',
      enableKeyRotation: true,
      // The recovery points outlive the stack; without the key, none could be restored.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.vault = new BackupVault(this, 'Vault', { encryptionKey: key, removalPolicy: RemovalPolicy.RETAIN });
    this.plan = new BackupPlan(this, 'Plan', { backupVault: this.vault });
    this.plan.addRule(
      new BackupPlanRule({
        ruleName: 'Daily',
        scheduleExpression: BACKUP_SCHEDULE,
        deleteAfter: BACKUP_RETENTION,
        ...(props.copyToVaultArn
          ? {
              copyActions: [
                {
                  destinationBackupVault: BackupVault.fromBackupVaultArn(this, 'CopyVault', props.copyToVaultArn),
                  deleteAfter: BACKUP_RETENTION,
                },
              ],
            }
          : {}),
      }),
    );
    const selection = this.plan.addSelection('Tables', {
      resources: BACKED_UP_TABLES.map((definition) => BackupResource.fromDynamoDbTable(props.tables.of(definition))),
    });
    Validations.of(selection).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
      reason:
        "AWSBackupServiceRolePolicyForBackup is AWS Backup's own service policy, kept current by AWS as the service changes; " +
        'what is backed up is confined by the selection (three table ARNs), not by the role.',
    });
  }
}

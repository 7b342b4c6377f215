/**
 * Output ids of the deployed stack. The operator CLI reads a stack's outputs by these ids, so this
 * module stays free of CDK imports: the CLI loads it without loading the CDK.
 */
export const outputIds = {
  apiUrl: 'ApiUrl',
  signingKeySecretArn: 'SigningKeySecretArn',
  alarmTopicArn: 'AlarmTopicArn',
  /** ClientsTableName, CompaniesTableName, …: one per table definition. */
  tableName: (tableId: string) => `${tableId.charAt(0).toUpperCase()}${tableId.slice(1)}TableName`,
} as const;

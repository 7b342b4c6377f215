/**
 * Output ids of the deployed stack. The operator CLI reads a stack's outputs by these ids, so this
 * module stays free of CDK imports: the CLI loads it without loading the CDK.
 */
const capitalized = (id: string) => `${id.charAt(0).toUpperCase()}${id.slice(1)}`;

export const outputIds = {
  apiUrl: 'ApiUrl',
  signingKeySecretArn: 'SigningKeySecretArn',
  webhookSecretsKeyArn: 'WebhookSecretsKeyArn',
  alarmTopicArn: 'AlarmTopicArn',
  ticketTopicArn: 'TicketTopicArn',
  workspaceUrl: 'WorkspaceUrl',
  dashboardUrl: 'DashboardUrl',
  distributionDomain: 'DistributionDomain',
  /** Whether the HTTP API's execute-api address is closed, or open and what that costs. */
  executeApiAddress: 'ExecuteApiAddress',
  deliveryAddresses: 'DeliveryAddresses',
  registerUploadsBucket: 'RegisterUploadsBucket',
  registerImportStateMachineArn: 'RegisterImportStateMachineArn',
  /** The secret the operator puts the Companies House streaming key in. */
  streamKeySecretArn: 'StreamKeySecretArn',
  /** ClientsTableName, CompaniesTableName, …: one per table definition. */
  tableName: (tableId: string) => `${capitalized(tableId)}TableName`,
  /** DeliveriesQueueUrl, FanoutQueueUrl: one per queue definition. */
  queueUrl: (queueId: string) => `${capitalized(queueId)}QueueUrl`,
  deadLetterQueueUrl: (queueId: string) => `${capitalized(queueId)}DeadLetterQueueUrl`,
} as const;

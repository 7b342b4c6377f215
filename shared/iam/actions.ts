/**
 * The IAM actions a function may be granted on a table or a queue, named as IAM names them (without
 * the service prefix). The catalogue declares grants in these terms; the stack turns them into
 * policies and the local runtime enforces the same list, so both read one vocabulary.
 */

/**
 * DynamoDB's item actions. A transaction has no action of its own: IAM checks each of its entries
 * as the item action it performs (Put as PutItem, Update as UpdateItem, Delete as DeleteItem,
 * ConditionCheck as ConditionCheckItem; TransactGetItems as GetItem).
 */
export const TABLE_ACTIONS = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'Scan',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'ConditionCheckItem',
] as const;

export type TableAction = (typeof TABLE_ACTIONS)[number];

/**
 * Reading a table's stream back, on its stream's ARN: an iterator at a sequence number, then its
 * records. The stream mapping's own reads are granted with the mapping, not through these.
 */
export const STREAM_ACTIONS = ['GetShardIterator', 'GetRecords'] as const;

export type StreamAction = (typeof STREAM_ACTIONS)[number];

/** Actions that change the item they name: those a dynamodb:LeadingKeys condition on a grant confines. */
export const KEYED_WRITE_ACTIONS: readonly TableAction[] = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];

export const isKeyedWrite = (action: string): boolean => (KEYED_WRITE_ACTIONS as readonly string[]).includes(action);

/** SQS actions; a batch call is authorised as its single form (SendMessageBatch as SendMessage). */
export type QueueAction = 'SendMessage' | 'ReceiveMessage' | 'DeleteMessage' | 'ChangeMessageVisibility' | 'GetQueueAttributes';

/** What a Lambda SQS event source mapping calls with the function's role: the function's code never does. */
export const QUEUE_MAPPING_ACTIONS: readonly QueueAction[] = ['ReceiveMessage', 'DeleteMessage', 'GetQueueAttributes'];

/** KMS actions on a key, as the code sends them: data keys for envelope encryption, and opening them again. */
export type KeyAction = 'GenerateDataKey' | 'Decrypt';

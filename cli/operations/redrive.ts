import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface RedriveProgress {
  readonly moved: number;
}

/**
 * Moves every message from a dead-letter queue back to its source queue: each batch is sent before
 * it is deleted, so a failure part way leaves a message in both queues (a duplicate, which the sender
 * recognises once delivered) and never in neither. Works alike on SQS and on the local emulator,
 * which has no redrive API.
 */
export async function redrive(
  sqs: SQSClient,
  from: string,
  to: string,
  options: { onProgress?: (progress: RedriveProgress) => void; emptyReceives?: number } = {},
): Promise<RedriveProgress> {
  let moved = 0;
  let empty = 0;
  const emptyReceives = options.emptyReceives ?? 2;
  while (empty < emptyReceives) {
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: from, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 60 }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) {
      empty += 1;
      continue;
    }
    empty = 0;
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: to,
        Entries: messages.map((message, index) => ({ Id: String(index), MessageBody: message.Body ?? '' })),
      }),
    );
    const failed = new Set((sent.Failed ?? []).map((failure) => failure.Id));
    const done = messages.filter((_, index) => !failed.has(String(index)));
    if (done.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: from,
          Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
        }),
      );
    }
    moved += done.length;
    options.onProgress?.({ moved });
    if (failed.size > 0) throw new Error(`${failed.size} message(s) could not be sent back; they stay in the dead-letter queue`);
  }
  return { moved };
}

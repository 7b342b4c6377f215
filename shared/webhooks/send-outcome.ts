import type { DeliveryAttempt } from './delivery-log';

/** What became of one received delivery message. */
export type SendOutcome =
  | { readonly kind: 'delivered'; readonly attempt: DeliveryAttempt }
  /** Try again after delaySeconds (the message's visibility). */
  | { readonly kind: 'retry'; readonly delaySeconds: number; readonly attempt: DeliveryAttempt }
  /** No attempt left: the delivery is dead in the log, where recovery finds it; the message is done. */
  | { readonly kind: 'exhausted'; readonly attempt: DeliveryAttempt }
  /** The endpoint answered 410 Gone, or failed for days: the subscription is disabled. */
  | { readonly kind: 'gone'; readonly attempt: DeliveryAttempt }
  /** Not sent: the subscription is gone or disabled. */
  | { readonly kind: 'dropped'; readonly reason: string }
  /**
   * Not sent: its signing secrets could not be opened (KMS failed, or the sealed value is not this
   * subscription's). The message is left to the queue, which hands it out again and in the end parks it.
   */
  | { readonly kind: 'unsigned'; readonly reason: string }
  /**
   * Sent, but its attempt could not be logged. The message is left to the queue: the next attempt
   * carries the same webhook-id, so a receiver that got this one can tell.
   */
  | { readonly kind: 'unrecorded'; readonly reason: string }
  /**
   * Not sent: the message came back before its next attempt is due (a visibility SQS would not grant
   * in one go, or a sender that died after logging). Hidden again for the time left.
   */
  | { readonly kind: 'early'; readonly delaySeconds: number }
  /** Already delivered (a fan-out step done twice). */
  | { readonly kind: 'duplicate' };

/*
 * What the stack, the local runtime and the functions agree on about the key that seals webhook
 * signing secrets. Free of imports, so the local runtime reads it without loading an SDK client.
 */

/** Every data key is bound to what it protects: KMS refuses to decrypt it under any other context. */
export const ENCRYPTION_CONTEXT: Readonly<Record<string, string>> = { purpose: 'bureau-webhook-signing-secrets' };

/** The variable that names the key to a function. */
export const WEBHOOK_SECRETS_KEY_VARIABLE = 'WEBHOOK_SECRETS_KEY_ID';

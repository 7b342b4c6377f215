/*
 * What the stack, the local runtime and the functions agree on about the key that seals webhook
 * signing secrets. Free of imports, so the local runtime reads it without loading an SDK client.
 */

/** A KMS encryption context: KMS refuses to decrypt a data key under any other than the one it was made with. */
export type EncryptionContext = Readonly<Record<string, string>>;

/** What every data key's context names; alone, the context of data keys made before contexts named the client. */
export const PURPOSE_CONTEXT: EncryptionContext = { purpose: 'bureau-webhook-signing-secrets' };

/**
 * The context of a client's data keys: a key made for one client never opens for another, and each
 * GenerateDataKey and Decrypt in CloudTrail names the client it was for.
 */
export const clientEncryptionContext = (clientId: string): EncryptionContext => ({ ...PURPOSE_CONTEXT, clientId });

/** The only names a context may hold: the key's grants refuse any other. */
export const ENCRYPTION_CONTEXT_KEYS: readonly string[] = ['clientId', 'purpose'];

/** The variable that names the key to a function. */
export const WEBHOOK_SECRETS_KEY_VARIABLE = 'WEBHOOK_SECRETS_KEY_ID';

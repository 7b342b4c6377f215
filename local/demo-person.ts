import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoWorkspaceStore } from '../shared/workspace/dynamo-workspace-store';

/** The demo client's first workspace user. */
export const DEMO_PERSON_EMAIL = 'demo@bureau.example';

/**
 * A one-time link for the demo person while they have chosen no password, so every `npm start`
 * until then prints one that works; undefined once they have.
 */
export async function inviteDemoPerson(doc: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<string | undefined> {
  const store = new DynamoWorkspaceStore(doc, tableName);
  const person = await store.personByEmail(DEMO_PERSON_EMAIL);
  if (person?.passwordHash) return undefined;
  return (await store.invite(clientId, DEMO_PERSON_EMAIL)).token;
}

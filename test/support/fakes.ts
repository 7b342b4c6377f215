import type { ClientLookup, ClientRecord } from '../../shared/auth/client-registry';
import type { JwksSource, KeySet, KeySetSource, PublicJwks } from '../../shared/auth/signing-keys';

/** A clock tests move by hand. */
export function manualClock(start = Date.parse('2025-03-01T12:00:00Z')) {
  let now = start;
  const clock = () => now;
  clock.advance = (seconds: number) => {
    now += seconds * 1000;
  };
  return clock;
}

export const staticKeySet = (keySet: KeySet): KeySetSource => ({ get: async () => keySet });

export function staticJwks(jwks: PublicJwks): JwksSource {
  return { get: async () => jwks, find: async (kid) => jwks.keys.find((key) => key.kid === kid) };
}

export function activeClient(clientId: string, overrides: Partial<ClientRecord> = {}): ClientRecord {
  return {
    clientId,
    name: `Client ${clientId}`,
    status: 'active',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    tokensNotBefore: 0,
    secretVersions: [{ version: 1, createdAt: '2025-01-01T00:00:00.000Z' }],
    ...overrides,
  };
}

export function clientLookup(...clients: ClientRecord[]): ClientLookup & { records: Map<string, ClientRecord> } {
  const records = new Map(clients.map((client) => [client.clientId, client]));
  return { records, get: async (clientId) => records.get(clientId) };
}

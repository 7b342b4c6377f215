import { beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../shared/auth/rate-limit';
import { workspaceTable } from '../../../shared/storage/tables';
import { DynamoWorkspaceStore } from '../../../shared/workspace/dynamo-workspace-store';
import { SIGN_IN_LIMITS, TooManySignInsError, WorkspaceAuth } from '../../../shared/workspace/workspace-auth';
import { presentMinuteMs } from '../../support/clock';
import { createTestTables } from '../../support/dynamo';

const STRONG = 'harbour lantern quietly orbits';
// Ten minutes ahead, so the counters' time to live outlasts a slow run of a hundred password hashes.
const nowMs = presentMinuteMs() + 10 * 60_000;
let store: DynamoWorkspaceStore;
let auth: WorkspaceAuth;

beforeAll(async () => {
  const tables = await createTestTables([workspaceTable]);
  const name = tables.names.workspace as string;
  store = new DynamoWorkspaceStore(tables.doc, name, () => nowMs);
  auth = new WorkspaceAuth(store, new RateLimiter(tables.doc, name, { clock: () => nowMs, timeoutMs: 20_000 }), () => nowMs);
});

/** What a sign-in attempt came to: signed in, refused (wrong password) or limited. */
const outcome = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'signed in',
    (error: unknown) => (error instanceof TooManySignInsError ? 'limited' : 'refused'),
  );

// A file of its own: a hundred admitted attempts are a hundred password hashes, which would push the
// endpoint tests past their frozen minute's counters' time to live.
describe('the limit on one person across all addresses', () => {
  it('is still reached by guesses from many places, each place adding at most its own allowance', async () => {
    const { token } = await store.invite('cli_aaaaaaaaaaaaaaaa', 'spread@acme.example');
    await auth.acceptInvitation(token, STRONG, '203.0.113.1');
    const places = SIGN_IN_LIMITS.perPerson / SIGN_IN_LIMITS.perPersonPerAddress;

    const perPlace = await Promise.all(
      Array.from({ length: places }, async (_, place) => {
        const outcomes: string[] = [];
        // One more than the place's allowance: the refused one counts against no other limit.
        for (let i = 0; i <= SIGN_IN_LIMITS.perPersonPerAddress; i++) {
          outcomes.push(await outcome(auth.signIn('spread@acme.example', `guess ${i}`, `192.0.2.${100 + place}`)));
        }
        return outcomes;
      }),
    );
    const fromANewPlace = await outcome(auth.signIn('spread@acme.example', STRONG, '198.51.100.200'));

    for (const outcomes of perPlace) {
      expect(outcomes).toEqual([...Array(SIGN_IN_LIMITS.perPersonPerAddress).fill('refused'), 'limited']);
    }
    expect(fromANewPlace).toBe('limited');
  }, 120_000);
});

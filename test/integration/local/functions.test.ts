import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineOutages } from '../../../local/engine-outages';
import { functionBundle } from '../../../local/function-bundle';
import { FunctionThrottledError, FunctionTimeoutError, LocalFunction } from '../../../local/functions';

const entry = join(import.meta.dirname, 'fixtures/environment-handler.ts');
const started: LocalFunction[] = [];
function localFunction(options: Partial<ConstructorParameters<typeof LocalFunction>[0]>): LocalFunction {
  const fn = new LocalFunction({ functionName: 'bureau-env', entry, ...options });
  started.push(fn);
  return fn;
}
afterAll(async () => {
  await Promise.all(started.map((fn) => fn.stop()));
});

interface Seen {
  env: Record<string, string>;
  invocations: number;
}

describe('a local function', () => {
  it('sees exactly the environment it is given: not another function’s table, nor the runtime’s own variables', async () => {
    const watches = localFunction({ environment: { WATCHES_TABLE: 'bureau-watches', AWS_REGION: 'eu-west-2' } });
    const search = localFunction({ environment: { COMPANIES_TABLE: 'bureau-companies', AWS_REGION: 'eu-west-2' } });

    const [fromWatches, fromSearch] = (await Promise.all([watches.invoke({}), search.invoke({})])) as Seen[];

    expect(fromWatches?.env).toEqual({ WATCHES_TABLE: 'bureau-watches', AWS_REGION: 'eu-west-2' });
    expect(fromSearch?.env).toEqual({ COMPANIES_TABLE: 'bureau-companies', AWS_REGION: 'eu-west-2' });
  });

  it('keeps module state per instance, never shared with another function', async () => {
    const first = localFunction({ concurrency: 1 });
    const second = localFunction({ concurrency: 1 });

    const counts = [];
    for (const fn of [first, first, second, first]) counts.push(((await fn.invoke({})) as Seen).invocations);

    expect(counts).toEqual([1, 2, 1, 3]);
  });

  it('serves one invocation per instance, starts instances up to its concurrency, and throttles beyond at once', async () => {
    const fn = localFunction({ concurrency: 2 });
    await fn.invoke({});

    const started = Date.now();
    const outcomes = await Promise.allSettled([fn.invoke({ sleepMs: 1500 }), fn.invoke({ sleepMs: 1500 }), fn.invoke({ sleepMs: 1500 })]);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(FunctionThrottledError);
    expect(fn.instances).toBe(2);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('times out after its timeout, but not for the seconds the local engine was away meanwhile', async () => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const outages = new EngineOutages();
    const [oneSecond, twoSeconds] = [1, 2].map((timeoutSeconds) => localFunction({ timeoutSeconds, engineOutages: outages }));
    await Promise.all([oneSecond?.invoke({}), twoSeconds?.invoke({})]);

    await expect(oneSecond?.invoke({ sleepMs: 2000 })).rejects.toBeInstanceOf(FunctionTimeoutError);
    // An outage over before the timeout falls due moves it by the outage's length: 2 s + 1.5 s.
    const afterAnOutage = twoSeconds?.invoke({ sleepMs: 2500 });
    outages.began();
    await pause(1500);
    outages.ended();
    await expect(afterAnOutage).resolves.toMatchObject({ invocations: 2 });
    // An outage still under way when the timeout falls due keeps moving it until the engine is back.
    const duringAnOutage = oneSecond?.invoke({ sleepMs: 2000 });
    outages.began();
    await pause(2500);
    outages.ended();
    await expect(duringAnOutage).resolves.toMatchObject({ invocations: 1 });
  });

  it('answers a throttled invocation without waiting for a busy instance', async () => {
    const fn = localFunction({ concurrency: 1 });
    await fn.invoke({});
    const busy = fn.invoke({ sleepMs: 3000 });

    const started = Date.now();
    await expect(fn.invoke({})).rejects.toBeInstanceOf(FunctionThrottledError);

    expect(Date.now() - started).toBeLessThan(500);
    await busy;
  });

  it('runs its code as it is now: built again when a file its handler imports has changed, reused while none has', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'bureau-function-'));
    const handler = join(folder, 'handler.ts');
    writeFileSync(join(folder, 'answer.ts'), 'export const answer = 1;\n');
    writeFileSync(handler, "import { answer } from './answer';\nexport const handler = async () => answer;\n");

    const before = await localFunction({ entry: handler }).invoke({});
    const built = statSync(await functionBundle(handler)).mtimeMs;
    const reused = statSync(await functionBundle(handler)).mtimeMs;
    writeFileSync(join(folder, 'answer.ts'), 'export const answer = 22;\n');
    const after = await localFunction({ entry: handler }).invoke({});

    expect(before).toBe(1);
    expect(reused).toBe(built);
    expect(after).toBe(22);
  });
});

import { describe, expect, it } from 'vitest';
import { EngineOutages } from '../../../local/engine-outages';

describe('the time the local engine was away', () => {
  it('adds up each outage, counts one under way to now, and ignores a repeated start or end', () => {
    let now = 1_000;
    const outages = new EngineOutages(() => now);
    expect(outages.totalMs()).toBe(0);

    outages.began();
    now += 300;
    outages.began();
    expect(outages.totalMs()).toBe(300);
    now += 200;
    outages.ended();
    outages.ended();
    now += 5_000;
    expect(outages.totalMs()).toBe(500);

    outages.began();
    now += 50;
    expect(outages.totalMs()).toBe(550);
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoRegisterActivity, readDemoStreamCompanies } from '../../../local/register-stream-publisher';

const sample = join(import.meta.dirname, '../../../data/gb-companies-2024-01.csv');

/** The demo register activity tells its observer of every set of accounts it files, as its events state them. */
describe('the demo register activity observed', () => {
  it('tells of each accounts filing with the company and the made-up date its filing and profile events give', () => {
    const filings: string[] = [];
    const profiles = new Map<string, string>();
    const told: string[] = [];
    let hour = 0;
    const emulator = {
      publish: (stream: string, body: { resource_uri?: string; data: Record<string, unknown> }) => {
        const data = body.data as {
          category?: string;
          description_values?: { made_up_date?: string };
          company_number?: string;
          accounts?: { last_accounts?: { made_up_to: string } };
        };
        if (stream === 'filings' && data.category === 'accounts') filings.push(`${body.resource_uri ?? ''}`);
        if (stream === 'companies' && data.accounts?.last_accounts)
          profiles.set(data.company_number as string, data.accounts.last_accounts.made_up_to);
        return filings.length + profiles.size;
      },
    };
    const activity = new DemoRegisterActivity(
      emulator as never,
      readDemoStreamCompanies(sample, 300),
      // A day goes by every 24 steps: a third of a year in all, so many periods end and are filed.
      () => Date.UTC(2026, 10, 28) + hour * 3_600_000,
      'observer-test',
      { onAccountsFiled: (companyNumber, madeUpTo) => told.push(`${companyNumber} ${madeUpTo}`) },
    );

    for (; hour < 3000; hour++) activity.step();

    expect(told.length).toBeGreaterThan(20);
    expect(told.length).toBe(filings.length);
    // The profile event published last for each company shows the last filing told of.
    const lastTold = new Map(told.map((line) => line.split(' ') as [string, string]));
    for (const [companyNumber, madeUpTo] of lastTold) expect(profiles.get(companyNumber)).toBe(madeUpTo);
  });
});

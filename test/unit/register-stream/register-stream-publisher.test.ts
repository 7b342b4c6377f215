import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerTimestamp, type StreamEventBody } from '../../../local/register-stream-emulator';
import { DemoRegisterActivity, officeOf, readDemoStreamCompanies } from '../../../local/register-stream-publisher';
import { parseStreamLine, type StreamName } from '../../../shared/register/stream/stream-events';

const sample = join(import.meta.dirname, '../../../data/gb-companies-2024-01.csv');

describe('demo register activity', () => {
  it('publishes on every stream, in shapes the consumer reads, about the sample companies', () => {
    const companies = readDemoStreamCompanies(sample, 500);
    const published: Array<{ stream: StreamName; body: StreamEventBody }> = [];
    let timepoint = 0;
    const activity = new DemoRegisterActivity(
      {
        publish: (stream, body) => {
          published.push({ stream, body });
          return ++timepoint;
        },
      },
      companies,
      () => Date.UTC(2026, 10, 25, 9),
      'fixed-seed',
    );

    for (let i = 0; i < 3000; i++) activity.step();
    const parsed = published.map(({ stream, body }, i) =>
      parseStreamLine(
        stream,
        JSON.stringify({ ...body, event: { ...body.event, timepoint: i + 1, published_at: registerTimestamp(0), type: 'changed' } }),
      ),
    );

    expect(parsed.filter((p) => !p.ok)).toEqual([]);
    expect(new Set(published.map(({ stream }) => stream)).size).toBe(9);
    const numbers = new Set(companies.map((c) => c.number));
    const profiles = published.filter(({ stream }) => stream === 'companies');
    expect(profiles.every(({ body }) => numbers.has(body.resource_id))).toBe(true);
    // The companies stream repeats events and sends some that change nothing, as the register's does.
    expect(profiles.some(({ body }) => body.event === undefined)).toBe(true);
    expect(new Set(profiles.map(({ body }) => body)).size).toBeLessThan(profiles.length);
  });

  it('reads a published one-line address into its parts', () => {
    expect(officeOf('Dean Cottage Arbour Lane Standish Wigan WN6 0YJ England')).toEqual({
      address_line_1: 'Dean Cottage Arbour Lane Standish',
      locality: 'Wigan',
      postal_code: 'WN6 0YJ',
      country: 'England',
    });
  });
});

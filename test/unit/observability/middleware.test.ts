import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { BusinessMetric, count, metrics } from '../../../shared/observability/metrics';
import { observed } from '../../../shared/observability/middleware';

const context = { functionName: 'probe', awsRequestId: 'request-1', memoryLimitInMB: '512' } as unknown as Context;

describe('an observed handler', () => {
  it('flushes what an invocation counted, and says nothing about an invocation that counted nothing', async () => {
    // Powertools Metrics writes its warnings through a console of its own, onto the process's streams.
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const counting = observed(async () => {
      count(BusinessMetric.searches);
      return 'counted';
    });
    const quiet = observed(async () => 'quiet');

    const first = await counting({}, context);
    const stored = metrics.hasStoredMetrics();
    const second = await quiet({}, context);
    stderr.mockRestore();
    stdout.mockRestore();

    expect([first, second]).toEqual(['counted', 'quiet']);
    expect(stored).toBe(false);
    expect(written.join('')).not.toContain('No application metrics');
  });

  it('leaves the deadline to the runtime: a handler past the remaining time it was given is not cut short by middy', async () => {
    const slow = observed(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return 'finished';
    });

    await expect(slow({}, { ...context, getRemainingTimeInMillis: () => 10 })).resolves.toBe('finished');
  });
});

import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { LOG_RETENTION_DAYS } from '../../infra/stage-settings';

describe('the log retention periods a stage may name', () => {
  it('are exactly those the CDK offers, so a stage the settings accept is one the stack can deploy', () => {
    const offered = Object.values(RetentionDays).filter((value): value is number => typeof value === 'number');

    expect([...LOG_RETENTION_DAYS].sort((a, b) => a - b)).toEqual([...offered].sort((a, b) => a - b));
  });
});

import { describe, expect, it } from 'vitest';
import { numberListSetting, numberSetting, SettingError } from '../../../shared/config/number-settings';
import { loadStreamConsumerConfig } from '../../../shared/register/stream/consumer-config';
import { deliveryPortsFrom } from '../../../shared/webhooks/endpoint-url';
import { DEFAULT_DISABLE_AFTER_FAILING_DAYS, disableAfterFailingDaysFrom } from '../../../shared/webhooks/sender';

const whole = { min: 1, max: 100, whole: true };

describe('numbers read from the environment', () => {
  it('takes the fallback when the variable is unset or blank, and the number when it is in range', () => {
    expect(numberSetting({}, 'LIMIT', 7, whole)).toBe(7);
    expect(numberSetting({ LIMIT: '  ' }, 'LIMIT', 7, whole)).toBe(7);
    expect(numberSetting({ LIMIT: ' 42 ' }, 'LIMIT', 7, whole)).toBe(42);
    expect(numberSetting({ DAYS: '0.5' }, 'DAYS', 5, { min: 0.1, max: 10 })).toBe(0.5);
    expect(numberSetting({ DAYS: '4.6e-5' }, 'DAYS', 5, { min: 1e-5, max: 10 })).toBe(4.6e-5);
  });

  it.each([
    ['0', 'below the range'],
    ['101', 'above the range'],
    ['2.5', 'a fraction where a whole number is asked'],
    ['ten', 'a word'],
    ['5 days', 'a number with a unit'],
    ['-3', 'a sign'],
    ['0x10', 'hexadecimal, which Number() reads as 16'],
    ['1e1', 'an exponent, where a whole number is asked'],
    ['Infinity', 'Infinity'],
    ['NaN', 'NaN'],
  ])('refuses %s (%s), naming the variable and the value', (value) => {
    expect(() => numberSetting({ LIMIT: value }, 'LIMIT', 7, whole)).toThrow(SettingError);
    expect(() => numberSetting({ LIMIT: value }, 'LIMIT', 7, whole)).toThrow(`LIMIT must be a whole number from 1 to 100, got "${value}"`);
  });

  it('reads a list, each entry checked, with the count it must have', () => {
    expect(numberListSetting({ PORTS: '443, 8443' }, 'PORTS', [443], { min: 1, max: 65_535, whole: true })).toEqual([443, 8443]);
    expect(() => numberListSetting({ PORTS: '443,,8443' }, 'PORTS', [443], { min: 1, max: 65_535, whole: true })).toThrow(/PORTS/);
    expect(() => numberListSetting({ WAITS: '1,2' }, 'WAITS', [1, 2, 3], { min: 0, max: 9, whole: true, length: 3 })).toThrow(
      'WAITS must list 3 whole numbers, comma-separated, from 0 to 9, got "1,2"',
    );
  });

  it('stops the sender on a DISABLE_FAILING_WEBHOOKS_AFTER_DAYS that would have been 0 or NaN', () => {
    expect(disableAfterFailingDaysFrom({})).toBe(DEFAULT_DISABLE_AFTER_FAILING_DAYS);
    expect(disableAfterFailingDaysFrom({ DISABLE_FAILING_WEBHOOKS_AFTER_DAYS: String(4 / 86_400) })).toBe(4 / 86_400);
    for (const value of ['0', 'five', '5d', '-1', '366']) {
      expect(() => disableAfterFailingDaysFrom({ DISABLE_FAILING_WEBHOOKS_AFTER_DAYS: value }), value).toThrow(
        'DISABLE_FAILING_WEBHOOKS_AFTER_DAYS',
      );
    }
  });

  it('stops the stream consumer and every delivery function on a bad number, naming it', () => {
    expect(() => loadStreamConsumerConfig({ STREAM_KEY_SECRET_ID: 'arn', STREAM_HANDOVER_SECONDS: '' })).not.toThrow();
    expect(() => loadStreamConsumerConfig({ STREAM_KEY_SECRET_ID: 'arn', STREAM_HANDOVER_SECONDS: '30s' })).toThrow(
      'STREAM_HANDOVER_SECONDS',
    );
    expect(() => deliveryPortsFrom({ WEBHOOK_PORTS: '443,0x20FB' })).toThrow('WEBHOOK_PORTS');
  });
});

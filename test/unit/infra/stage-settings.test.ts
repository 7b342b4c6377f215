import { describe, expect, it } from 'vitest';
import { StageSettingsError, stageSettings } from '../../../infra/stage-settings';

const valid = {
  stackName: 'Bureau-test',
  tokenIssuer: 'https://test.bureau.example',
  tokenAudience: 'bureau-api',
  alarmEmail: 'ops@bureau.example',
  apiThrottle: { rateLimit: 10, burstLimit: 20 },
  functionLogRetentionDays: 14,
  accessLogRetentionDays: 90,
  signingKeyRotationDays: 30,
  signingKeyAdministrators: ['arn:aws:iam::123456789012:role/BureauKeyAdmin'],
};
const file = (overrides: Record<string, unknown>) => JSON.stringify({ test: { ...valid, ...overrides } });

describe('stage settings', () => {
  it('reads the checked-in stages, each complete', () => {
    for (const stage of ['dev', 'prod']) expect(stageSettings(stage).tokenIssuer).toMatch(/^https:\/\//);
    expect(stageSettings('test', file({}))).toEqual(valid);
  });

  it('names the known stages when asked for another', () => {
    expect(() => stageSettings('staging', file({}))).toThrow('No stage "staging" in infra/stages.json; the stages are: test.');
  });

  it.each([
    ['an issuer that is not https', { tokenIssuer: 'http://bureau.example' }, 'test.tokenIssuer'],
    ['a retention CloudWatch does not offer', { functionLogRetentionDays: 15 }, 'test.functionLogRetentionDays'],
    ['a throttle of zero', { apiThrottle: { rateLimit: 0, burstLimit: 1 } }, 'test.apiThrottle.rateLimit'],
    ['an alarm address that is none', { alarmEmail: 'ops' }, 'test.alarmEmail'],
    ['a stack name CloudFormation refuses', { stackName: '1bureau' }, 'test.stackName'],
    [
      'a key administrator that is no role',
      { signingKeyAdministrators: ['arn:aws:iam::123456789012:user/alice'] },
      'test.signingKeyAdministrators',
    ],
  ])('refuses %s, naming the field', (_case, overrides, field) => {
    expect(() => stageSettings('test', file(overrides))).toThrow(StageSettingsError);
    expect(() => stageSettings('test', file(overrides))).toThrow(field);
  });
});

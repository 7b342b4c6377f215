import { describe, expect, it } from 'vitest';
import { StageSettingsError, stageSettings } from '../../../infra/stage-settings';

const valid = {
  stackName: 'Bureau-test',
  tokenIssuer: 'https://test.bureau.example',
  tokenAudience: 'bureau-api',
  production: true,
  alarms: { emails: ['ops@bureau.example'], topicArns: ['arn:aws:sns:us-east-1:123456789012:bureau-chat'] },
  apiThrottle: { rateLimit: 10, burstLimit: 20 },
  functionLogRetentionDays: 14,
  accessLogRetentionDays: 90,
  signingKeyRotationDays: 30,
  signingKeyAdministrators: ['arn:aws:iam::123456789012:role/BureauKeyAdmin'],
  region: 'eu-west-1',
  edge: {
    domainName: 'api.bureau.example',
    hostedZone: { id: 'Z0123456789ABCDEFGHIJ', name: 'bureau.example' },
    certificateArn: null,
    requestsPerAddressPer5Minutes: 3000,
    signInsPerAddressPer5Minutes: 100,
    originSecretRevision: 1,
  },
  egress: { fixedAddresses: false, addresses: 2, ports: [443, 8443] },
};
const edge = (overrides: Record<string, unknown>) => ({ edge: { ...valid.edge, ...overrides } });
const file = (overrides: Record<string, unknown>) => JSON.stringify({ test: { ...valid, ...overrides } });

describe('stage settings', () => {
  it('reads the checked-in stages, each complete', () => {
    expect(stageSettings('dev').tokenIssuer).toMatch(/^https:\/\//);
    expect(stageSettings('test', file({}))).toEqual(valid);
  });

  it('builds a production stage whose alarms reach someone: by e-mail, or by topics in both regions its alarms live in', () => {
    const topics = ['arn:aws:sns:eu-west-1:123456789012:ops', 'arn:aws:sns:us-east-1:123456789012:ops'];

    expect(stageSettings('test', file({ alarms: { emails: ['ops@bureau.example'], topicArns: [] } })).production).toBe(true);
    expect(stageSettings('test', file({ alarms: { emails: [], topicArns: topics } })).alarms.topicArns).toEqual(topics);
    expect(stageSettings('test', file({ production: false, alarms: { emails: [], topicArns: [] } })).alarms.emails).toEqual([]);
  });

  it('refuses the production stage as checked in until its alarms name someone', () => {
    expect(() => stageSettings('prod')).toThrow(/prod\.alarms names no one, and a production stage's alarms must reach someone/);
  });

  it('names the known stages when asked for another', () => {
    expect(() => stageSettings('staging', file({}))).toThrow('No stage "staging" in infra/stages.json; the stages are: test.');
  });

  it.each([
    ['an issuer that is not https', { tokenIssuer: 'http://bureau.example' }, 'test.tokenIssuer'],
    ['a retention CloudWatch does not offer', { functionLogRetentionDays: 15 }, 'test.functionLogRetentionDays'],
    ['a throttle of zero', { apiThrottle: { rateLimit: 0, burstLimit: 1 } }, 'test.apiThrottle.rateLimit'],
    ['an alarm address that is none', { alarms: { emails: ['ops'], topicArns: [] } }, 'test.alarms.emails'],
    ['the alarm address of earlier releases', { alarmEmail: 'ops@bureau.example' }, 'test.alarmEmail'],
    [
      'an alarm topic in a region where no alarm of the stage lives',
      { alarms: { emails: [], topicArns: ['arn:aws:sns:eu-west-2:123456789012:ops'] } },
      'test.alarms.topicArns',
    ],
    [
      'an alarm topic that is no SNS topic',
      { alarms: { emails: [], topicArns: ['arn:aws:sqs:eu-west-1:123456789012:ops'] } },
      'test.alarms.topicArns',
    ],
    ['a stage that does not say whether it is production', { production: undefined }, 'test.production'],
    ['a production stage whose alarms reach no one', { alarms: { emails: [], topicArns: [] } }, 'test.alarms'],
    [
      'a production stage whose alarms reach someone in one of their two regions only',
      { alarms: { emails: [], topicArns: ['arn:aws:sns:eu-west-1:123456789012:ops'] } },
      'test.alarms',
    ],
    ['a stack name CloudFormation refuses', { stackName: '1bureau' }, 'test.stackName'],
    [
      'a key administrator that is no role',
      { signingKeyAdministrators: ['arn:aws:iam::123456789012:user/alice'] },
      'test.signingKeyAdministrators',
    ],
    ['a region that is none', { region: 'London' }, 'test.region'],
    ['a domain name with capitals', edge({ domainName: 'API.bureau.example' }), 'test.edge.domainName'],
    [
      'a hosted zone that is not a parent of the domain',
      edge({ hostedZone: { id: 'Z0123', name: 'other.example' } }),
      'test.edge.hostedZone',
    ],
    [
      'a certificate outside us-east-1, where CloudFront cannot read it',
      edge({ hostedZone: null, certificateArn: 'arn:aws:acm:eu-west-2:123456789012:certificate/abc-123' }),
      'test.edge.certificateArn',
    ],
    ['a domain with neither a zone nor a certificate', edge({ hostedZone: null }), 'test.edge.domainName'],
    ['a zone without a domain', edge({ domainName: null }), 'test.edge.hostedZone'],
    [
      'a certificate without a domain',
      edge({ domainName: null, hostedZone: null, certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123' }),
      'test.edge.domainName',
    ],
    ['a rate limit AWS WAF cannot count', edge({ requestsPerAddressPer5Minutes: 5 }), 'test.edge.requestsPerAddressPer5Minutes'],
    ['fixed addresses that are not a yes or no', { egress: { fixedAddresses: 'yes', addresses: 2 } }, 'test.egress.fixedAddresses'],
    ['more NAT gateways than availability zones it uses', { egress: { fixedAddresses: true, addresses: 4 } }, 'test.egress.addresses'],
    ['a delivery port that is none', { egress: { fixedAddresses: false, addresses: 2, ports: [443, 70000] } }, 'test.egress.ports'],
    ['no delivery port at all', { egress: { fixedAddresses: false, addresses: 2, ports: [] } }, 'test.egress.ports'],
  ])('refuses %s, naming the field', (_case, overrides, field) => {
    expect(() => stageSettings('test', file(overrides))).toThrow(StageSettingsError);
    expect(() => stageSettings('test', file(overrides))).toThrow(field);
  });
});

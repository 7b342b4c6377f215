import { readFileSync } from 'node:fs';
import { type EdgeSettings, STAGES_FILE, type StageSettings, stageSettings } from '../../infra/stage-settings';

/** The address a deploy of a checked-in stage would put in its alarms.emails. */
export const OPERATOR_ALARM_EMAIL = 'ops@bureau.example';

/**
 * A checked-in stage as its operator completes it before deploying: prod is committed with no alarm
 * destination, which the settings refuse, so a test reads it with an address filled in.
 */
export function completedStage(stage: string): StageSettings {
  const stages = JSON.parse(readFileSync(STAGES_FILE, 'utf8')) as Record<string, Record<string, unknown>>;
  const settings = stages[stage];
  if (!settings) throw new Error(`No stage ${stage} in infra/stages.json`);
  return stageSettings(stage, JSON.stringify({ [stage]: { ...settings, alarms: { emails: [OPERATOR_ALARM_EMAIL], topicArns: [] } } }));
}

/** The edge of a stage served on CloudFront's own name: no domain, the firewall's default limits. */
export const EDGE_WITHOUT_DOMAIN: EdgeSettings = {
  domainName: null,
  hostedZone: null,
  certificateArn: null,
  requestsPerAddressPer5Minutes: 3000,
  signInsPerAddressPer5Minutes: 100,
  originSecretRevision: 1,
};

/** The edge of a stage whose domain is in a Route 53 zone, its certificate made by the edge stack. */
export const EDGE_IN_ROUTE_53: EdgeSettings = {
  ...EDGE_WITHOUT_DOMAIN,
  domainName: 'api.bureau.example',
  hostedZone: { id: 'Z0123456789', name: 'bureau.example' },
};

/** The edge of a stage whose domain's DNS is elsewhere: the operator brings a us-east-1 certificate. */
export const EDGE_DNS_ELSEWHERE: EdgeSettings = {
  ...EDGE_WITHOUT_DOMAIN,
  domainName: 'api.bureau.example',
  certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123',
};

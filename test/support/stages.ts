import { readFileSync } from 'node:fs';
import { STAGES_FILE, type StageSettings, stageSettings } from '../../infra/stage-settings';

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

import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { BureauStack } from '../../infra/stack';
import { STAGES_FILE, StageSettingsError, stageSettings } from '../../infra/stage-settings';
import { companiesTable } from '../../shared/storage/tables';
import { defaultServiceStack } from '../support/service-stack';
import { TEST_WEB_ACL } from '../support/web-acl';

/** The checked-in dev stage with more settings: every other field as deployed. */
const devWith = (extra: Record<string, unknown>) => {
  const stages = JSON.parse(readFileSync(STAGES_FILE, 'utf8')) as Record<string, Record<string, unknown>>;
  return JSON.stringify({ dev: { ...stages.dev, ...extra } });
};

const tablesOf = (template: Template) =>
  Object.values(template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>).filter(
    (resource) => resource.Type === 'AWS::DynamoDB::Table',
  );

describe('warm throughput of the companies table, for a first load', () => {
  it('is a stage setting, checked against what DynamoDB allows', () => {
    const warm = { readUnitsPerSecond: 12_000, writeUnitsPerSecond: 20_000 };

    expect(stageSettings('dev', devWith({ companiesWarmThroughput: warm })).companiesWarmThroughput).toEqual(warm);
    expect(stageSettings('dev', devWith({ companiesWarmThroughput: null }))).not.toHaveProperty('companiesWarmThroughput');
    expect(stageSettings('dev', devWith({}))).not.toHaveProperty('companiesWarmThroughput');
    for (const wrong of [
      { readUnitsPerSecond: 12_000 },
      { ...warm, writeUnitsPerSecond: 100 },
      { ...warm, readUnitsPerSecond: 1e9 },
      'warm',
    ]) {
      expect(() => stageSettings('dev', devWith({ companiesWarmThroughput: wrong })), JSON.stringify(wrong)).toThrow(StageSettingsError);
    }
  });

  it('is given to the companies table alone, and to no table when the stage does not ask', () => {
    const warm = { readUnitsPerSecond: 12_000, writeUnitsPerSecond: 20_000 };
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const warmed = Template.fromStack(
      new BureauStack(app, 'Warm', { edge: { webAclArn: TEST_WEB_ACL }, settings: { companiesWarmThroughput: warm } }),
    );
    const plain = defaultServiceStack().template;

    const withWarmth = tablesOf(warmed).filter((table) => 'WarmThroughput' in table.Properties);
    expect(withWarmth).toHaveLength(1);
    expect(withWarmth[0]?.Properties).toMatchObject({
      WarmThroughput: { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 20_000 },
      KeySchema: expect.arrayContaining([expect.objectContaining({ AttributeName: companiesTable.partitionKey.name })]),
    });
    expect(JSON.stringify(withWarmth[0]?.Properties)).toContain('"PAY_PER_REQUEST"');
    expect(tablesOf(plain).filter((table) => 'WarmThroughput' in table.Properties)).toEqual([]);
  }, 120_000);
});

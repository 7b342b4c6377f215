import { describe, expect, it } from 'vitest';
import { DEFAULT_REGISTER_FEEDS, stageSettings } from '../../../infra/stage-settings';
import { completedStage } from '../../support/stages';

const base = JSON.parse(JSON.stringify(completedStage('prod'))) as Record<string, unknown>;
const file = (registerFeeds: unknown) => JSON.stringify({ test: { ...base, registerFeeds } });

describe("a stage's register feeds", () => {
  it('are read from the checked-in stages, https and known streams only', () => {
    for (const stage of ['dev', 'prod']) {
      const feeds = completedStage(stage).registerFeeds;
      expect(feeds?.croCompaniesUrl).toMatch(/^https:\/\//);
      expect(feeds?.companiesHouseStreams.length).toBeGreaterThan(0);
    }
    expect(completedStage('prod').registerFeeds).toEqual(DEFAULT_REGISTER_FEEDS);
  });

  it('may turn the IE re-import and the streams off', () => {
    expect(stageSettings('test', file({ companiesHouseStreams: [], croCompaniesUrl: null })).registerFeeds).toEqual({
      companiesHouseStreams: [],
      croCompaniesUrl: null,
    });
  });

  it.each([
    ['a plain-http CRO URL', { companiesHouseStreams: [], croCompaniesUrl: 'http://opendata.cro.ie/companies.csv' }, 'croCompaniesUrl'],
    [
      'a CRO URL with credentials in it',
      { companiesHouseStreams: [], croCompaniesUrl: 'https://a:b@opendata.cro.ie/x' },
      'croCompaniesUrl',
    ],
    ['a stream Companies House does not have', { companiesHouseStreams: ['company'], croCompaniesUrl: null }, 'companiesHouseStreams'],
    ['a stream named twice', { companiesHouseStreams: ['filings', 'filings'], croCompaniesUrl: null }, 'companiesHouseStreams'],
  ])('refuses %s, naming the field', (_what, feeds, field) => {
    expect(() => stageSettings('test', file(feeds))).toThrow(`infra/stages.json: test.registerFeeds.${field}`);
  });
});

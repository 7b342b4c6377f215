import { describe, expect, it } from 'vitest';
import { chosenStage, DEFAULT_STAGE } from '../../../infra/stage-choice';
import { stageSettings } from '../../../infra/stage-settings';
import { completedStage } from '../../support/stages';

describe('the stage a synth or deploy builds', () => {
  it('is dev when none is named, so prod is deployed only by name', () => {
    expect(chosenStage(undefined)).toBe('dev');
    expect(stageSettings(DEFAULT_STAGE).stackName).not.toBe(completedStage('prod').stackName);
  });

  it('is the one named, and an empty or non-text name is refused with how to name one', () => {
    expect(chosenStage('prod')).toBe('prod');
    expect(chosenStage(' dev ')).toBe('dev');
    expect(() => chosenStage('')).toThrow(/-c stage=… names no stage/);
    expect(() => chosenStage(true)).toThrow(/-c stage=dev/);
  });
});

/**
 * The stage a synth or deploy builds when `-c stage=…` is not given: dev, never prod. A production
 * deploy must be asked for by name, so a bare `npx cdk deploy --all` cannot touch it by accident.
 */
export const DEFAULT_STAGE = 'dev';

export function chosenStage(context: unknown): string {
  if (context === undefined) return DEFAULT_STAGE;
  if (typeof context !== 'string' || context.trim() === '')
    throw new Error('-c stage=… names no stage: give one of the stages in infra/stages.json, e.g. -c stage=dev');
  return context.trim();
}

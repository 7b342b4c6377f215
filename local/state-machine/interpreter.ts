import pLimit from 'p-limit';
import type { StateMachineDefinition } from './register-import-definition';

/**
 * The Amazon States Language, played on one machine: as much of it as the definitions this
 * project deploys use (Task, Map inline and distributed, Choice, Pass, Succeed, Fail; JSONPath
 * `$`, `$.a.b`, `$$.Map.Item.Value`; Parameters, ItemSelector, ResultPath, Retry). A field it does
 * not know stops the execution with an error that names it, so a definition can never use a
 * feature that runs on AWS and is quietly skipped here.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON values at runtime, checked where they are read
type Json = any;

/** An error as Step Functions names it: `States.TaskFailed`, a function's own error type, … */
export class StatesError extends Error {
  constructor(
    readonly error: string,
    override readonly cause: string,
  ) {
    super(`${error}: ${cause}`);
    this.name = 'StatesError';
  }
}

/** What the interpreter calls out to: a Task's resource, and S3 for a Distributed Map's reader and writer. */
export interface StateMachineAdapters {
  /** Invokes a Task's resource (a Lambda function's ARN) with its input; throws a StatesError when the task fails. */
  invoke(resource: string, input: Json): Promise<Json>;
  readJson(bucket: string, key: string): Promise<Json>;
  writeJson(bucket: string, key: string, value: Json): Promise<void>;
  /** How long a retry waits, given what the definition asks (milliseconds); default: as asked. */
  retryDelayMs?: (askedMs: number) => number;
}

export type HistoryEvent =
  | { readonly type: 'StateEntered' | 'StateExited'; readonly name: string; readonly stateType: string; readonly at: Date }
  | { readonly type: 'TaskRetried'; readonly name: string; readonly error: string; readonly at: Date }
  | { readonly type: 'MapRunStarted'; readonly name: string; readonly mapRunId: string; readonly total: number; readonly at: Date };

export interface MapRunProgress {
  readonly mapRunId: string;
  readonly label: string;
  total: number;
  succeeded: number;
  failed: number;
  running: number;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
}

export interface ExecutionObserver {
  onEvent?(event: HistoryEvent): void;
  onMapRun?(run: MapRunProgress): void;
}

const KNOWN_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Task: ['Type', 'Comment', 'Resource', 'Parameters', 'ResultPath', 'Retry', 'Next', 'End', 'TimeoutSeconds'],
  Map: [
    'Type',
    'Comment',
    'ItemsPath',
    'ItemSelector',
    'ItemProcessor',
    'ItemReader',
    'ResultWriter',
    'MaxConcurrency',
    'ToleratedFailurePercentage',
    'Label',
    'ResultPath',
    'Next',
    'End',
  ],
  Choice: ['Type', 'Comment', 'Choices', 'Default'],
  Pass: ['Type', 'Comment', 'Parameters', 'Result', 'ResultPath', 'Next', 'End'],
  Succeed: ['Type', 'Comment'],
  Fail: ['Type', 'Comment', 'Error', 'Cause'],
};

function checkFields(name: string, state: Json): void {
  const known = KNOWN_FIELDS[state.Type as string];
  if (!known) throw new StatesError('States.Runtime', `${name}: the local state machine cannot run a ${state.Type} state`);
  const unknown = Object.keys(state).filter((field) => !known.includes(field));
  if (unknown.length > 0) throw new StatesError('States.Runtime', `${name}: the local state machine cannot run ${unknown.join(', ')}`);
}

/** `$`, `$.a.b` over the input, `$$.a.b` over the context object. */
export function readPath(path: string, input: Json, context: Json): Json {
  const [root, rest] = path.startsWith('$$') ? [context, path.slice(2)] : [input, path.slice(1)];
  if (rest !== '' && !/^(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(rest))
    throw new StatesError('States.Runtime', `the local state machine reads no path like ${path}`);
  let value = root;
  for (const part of rest.split('.').slice(1)) {
    if (value === null || typeof value !== 'object' || !(part in value))
      throw new StatesError('States.Runtime', `The JSONPath ${path} could not be found in the input`);
    value = value[part];
  }
  return value;
}

/** A payload template: fields ending in `.$` take the value at their path. */
export function fillTemplate(template: Json, input: Json, context: Json): Json {
  if (Array.isArray(template)) return template.map((item) => fillTemplate(item, input, context));
  if (template === null || typeof template !== 'object') return template;
  const out: Record<string, Json> = {};
  for (const [field, value] of Object.entries(template)) {
    if (field.endsWith('.$')) out[field.slice(0, -2)] = readPath(value as string, input, context);
    else out[field] = fillTemplate(value, input, context);
  }
  return out;
}

function applyResultPath(resultPath: string | null | undefined, input: Json, result: Json): Json {
  if (resultPath === undefined || resultPath === '$') return result;
  if (resultPath === null) return input;
  const parts = resultPath.slice(2).split('.');
  if (!resultPath.startsWith('$.') || parts.some((part) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)))
    throw new StatesError('States.Runtime', `the local state machine writes no ResultPath like ${resultPath}`);
  const output = structuredClone(input ?? {});
  let at = output;
  for (const part of parts.slice(0, -1)) {
    if (at[part] === null || typeof at[part] !== 'object') at[part] = {};
    at = at[part];
  }
  at[parts.at(-1) as string] = result;
  return output;
}

function evaluateRule(rule: Json, input: Json, context: Json): boolean {
  if (rule.And) return (rule.And as Json[]).every((inner) => evaluateRule(inner, input, context));
  if (rule.Or) return (rule.Or as Json[]).some((inner) => evaluateRule(inner, input, context));
  if (rule.Not) return !evaluateRule(rule.Not, input, context);
  let value: Json;
  try {
    value = readPath(rule.Variable, input, context);
  } catch {
    // As on AWS, a missing variable is an error, not a false comparison.
    throw new StatesError(
      'States.Runtime',
      `Invalid path '${rule.Variable}': The choice state's condition path references an invalid value.`,
    );
  }
  const operators = Object.keys(rule).filter((field) => field !== 'Variable' && field !== 'Next');
  if (operators.length !== 1) throw new StatesError('States.Runtime', `a choice rule with ${operators.join(', ')}`);
  const operator = operators[0] as string;
  const operand = rule[operator];
  switch (operator) {
    case 'BooleanEquals':
      return typeof value === 'boolean' && value === operand;
    case 'StringEquals':
      return typeof value === 'string' && value === operand;
    case 'NumericEquals':
      return typeof value === 'number' && value === operand;
    case 'NumericGreaterThan':
      return typeof value === 'number' && value > operand;
    case 'NumericLessThan':
      return typeof value === 'number' && value < operand;
    case 'IsPresent':
      return operand === true;
    default:
      throw new StatesError('States.Runtime', `the local state machine cannot evaluate ${operator}`);
  }
}

const TASK_ERRORS_ARE_NOT = new Set(['States.Timeout', 'States.Runtime']);

function retryMatches(errorEquals: readonly string[], error: string): boolean {
  return errorEquals.some(
    (name) => name === error || name === 'States.ALL' || (name === 'States.TaskFailed' && !TASK_ERRORS_ARE_NOT.has(error)),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One execution of a definition. */
export class Execution {
  private mapRuns = 0;

  constructor(
    private readonly adapters: StateMachineAdapters,
    private readonly observer: ExecutionObserver,
    private readonly executionId: string,
  ) {}

  async run(definition: StateMachineDefinition, input: Json, context: Json = {}, top = true): Promise<Json> {
    let name: string | undefined = definition.StartAt;
    let data = input;
    while (name !== undefined) {
      const state = definition.States[name];
      if (!state) throw new StatesError('States.Runtime', `no state ${name}`);
      checkFields(name, state);
      if (top) this.observer.onEvent?.({ type: 'StateEntered', name, stateType: state.Type, at: new Date() });
      const next = await this.step(name, state, data, context);
      if (top) this.observer.onEvent?.({ type: 'StateExited', name, stateType: state.Type, at: new Date() });
      data = next.output;
      name = next.next;
    }
    return data;
  }

  private async step(name: string, state: Json, input: Json, context: Json): Promise<{ output: Json; next?: string }> {
    const then = (output: Json) => ({ output, ...(state.End ? {} : { next: state.Next as string }) });
    switch (state.Type) {
      case 'Task': {
        const parameters = 'Parameters' in state ? this.parameters(name, state.Parameters, input, context) : input;
        const result = await this.withRetries(name, state.Retry ?? [], () => this.adapters.invoke(state.Resource, parameters));
        return then(applyResultPath(state.ResultPath, input, result));
      }
      case 'Map':
        return then(applyResultPath(state.ResultPath, input, await this.map(name, state, input, context)));
      case 'Choice': {
        const chosen = (state.Choices as Json[]).find((rule) => evaluateRule(rule, input, context));
        const next = chosen?.Next ?? state.Default;
        if (!next) throw new StatesError('States.NoChoiceMatched', `${name}: no choice rule matched and there is no Default`);
        return { output: input, next };
      }
      case 'Pass': {
        const result = state.Result ?? ('Parameters' in state ? fillTemplate(state.Parameters, input, context) : input);
        return then(applyResultPath(state.ResultPath, input, result));
      }
      case 'Succeed':
        return { output: input };
      case 'Fail':
        throw new StatesError(state.Error ?? 'States.Fail', state.Cause ?? '');
      default:
        throw new StatesError('States.Runtime', `${name}: ${state.Type}`);
    }
  }

  /** Step Functions refuses a Parameters that is not an object when it validates the definition; so does this. */
  private parameters(name: string, parameters: Json, input: Json, context: Json): Json {
    if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters))
      throw new StatesError('States.Runtime', `${name}: Parameters must be an object, got ${JSON.stringify(parameters)}`);
    return fillTemplate(parameters, input, context);
  }

  private async withRetries(name: string, retriers: readonly Json[], attempt: () => Promise<Json>): Promise<Json> {
    const attempts = retriers.map(() => 0);
    for (;;) {
      try {
        return await attempt();
      } catch (thrown) {
        const error = thrown instanceof StatesError ? thrown : new StatesError('States.TaskFailed', (thrown as Error).message);
        const index = retriers.findIndex((retrier) => retryMatches(retrier.ErrorEquals, error.error));
        const retrier = retriers[index];
        if (!retrier || (attempts[index] as number) >= (retrier.MaxAttempts ?? 3)) throw error;
        const interval = (retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** (attempts[index] as number);
        const capped = Math.min(interval, retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY) * 1000;
        const asked = retrier.JitterStrategy === 'FULL' ? Math.random() * capped : capped;
        attempts[index] = (attempts[index] as number) + 1;
        this.observer.onEvent?.({ type: 'TaskRetried', name, error: error.error, at: new Date() });
        await sleep(this.adapters.retryDelayMs ? this.adapters.retryDelayMs(asked) : asked);
      }
    }
  }

  private async map(name: string, state: Json, input: Json, context: Json): Promise<Json> {
    const processor = state.ItemProcessor as Json;
    const mode = processor.ProcessorConfig?.Mode ?? 'INLINE';
    const items = state.ItemReader
      ? await this.readItems(name, state.ItemReader, input, context)
      : readPath(state.ItemsPath ?? '$', input, context);
    if (!Array.isArray(items)) throw new StatesError('States.Runtime', `${name}: the items are not an array`);
    const limit = pLimit(state.MaxConcurrency || 40);
    const { ProcessorConfig: _config, ...childDefinition } = processor;
    const child = (item: Json, index: number) => {
      const itemContext = { ...context, Map: { Item: { Index: index, Value: item } } };
      const childInput = state.ItemSelector ? fillTemplate(state.ItemSelector, input, itemContext) : item;
      return { childInput, result: () => this.run(childDefinition as StateMachineDefinition, childInput, itemContext, false) };
    };
    if (mode !== 'DISTRIBUTED') {
      if (state.ResultWriter || state.ToleratedFailurePercentage !== undefined)
        throw new StatesError('States.Runtime', `${name}: an inline Map has no ResultWriter or tolerated failures`);
      return Promise.all(items.map((item, index) => limit(() => child(item, index).result())));
    }

    // A Distributed Map: each item a child execution; failures tolerated up to their share; results written to S3.
    const mapRunId = `${this.executionId}-${++this.mapRuns}`;
    const run: MapRunProgress = {
      mapRunId,
      label: state.Label ?? name,
      total: items.length,
      succeeded: 0,
      failed: 0,
      running: 0,
      status: 'RUNNING',
    };
    this.observer.onEvent?.({ type: 'MapRunStarted', name, mapRunId, total: items.length, at: new Date() });
    this.observer.onMapRun?.(run);
    const executions = await Promise.all(
      items.map((item, index) =>
        limit(async () => {
          const { childInput, result } = child(item, index);
          run.running++;
          this.observer.onMapRun?.(run);
          try {
            const output = await result();
            run.succeeded++;
            return { Status: 'SUCCEEDED', Input: JSON.stringify(childInput), Output: JSON.stringify(output) };
          } catch (thrown) {
            const error = thrown instanceof StatesError ? thrown : new StatesError('States.TaskFailed', String(thrown));
            run.failed++;
            return { Status: 'FAILED', Input: JSON.stringify(childInput), Error: error.error, Cause: error.cause };
          } finally {
            run.running--;
            this.observer.onMapRun?.(run);
          }
        }),
      ),
    );
    const tolerated = state.ToleratedFailurePercentage ?? 0;
    const failedShare = items.length === 0 ? 0 : (100 * run.failed) / items.length;
    run.status = failedShare > tolerated ? 'FAILED' : 'SUCCEEDED';
    this.observer.onMapRun?.(run);
    const output = state.ResultWriter
      ? await this.writeResults(name, state.ResultWriter, mapRunId, executions, input, context)
      : executions;
    if (run.status === 'FAILED')
      throw new StatesError('States.ExceedToleratedFailureThreshold', `${run.failed} of ${items.length} items failed`);
    return output;
  }

  private async readItems(name: string, reader: Json, input: Json, context: Json): Promise<Json> {
    const { Resource, ReaderConfig, Parameters, ...rest } = reader;
    if (Object.keys(rest).length > 0 || !/^arn:aws:states:::s3:getObject$/.test(Resource) || ReaderConfig?.InputType !== 'JSON')
      throw new StatesError('States.Runtime', `${name}: the local state machine reads items only from a JSON object in S3`);
    const { Bucket, Key } = fillTemplate(Parameters, input, context);
    return this.adapters.readJson(Bucket, Key);
  }

  /** As Step Functions' ResultWriter: a manifest and one file of child executions per status, under the run's id. */
  private async writeResults(name: string, writer: Json, mapRunId: string, executions: readonly Json[], input: Json, context: Json) {
    const { Resource, Parameters, ...rest } = writer;
    if (Object.keys(rest).length > 0 || !/^arn:aws:states:::s3:putObject$/.test(Resource))
      throw new StatesError('States.Runtime', `${name}: the local state machine writes results only to S3 objects`);
    const { Bucket, Prefix } = fillTemplate(Parameters, input, context);
    const base = `${Prefix}/${mapRunId}`;
    const files: Record<string, { Key: string; Size: number }[]> = { SUCCEEDED: [], FAILED: [], PENDING: [] };
    for (const status of ['SUCCEEDED', 'FAILED'] as const) {
      const ofStatus = executions.filter((execution) => execution.Status === status);
      if (ofStatus.length === 0) continue;
      const Key = `${base}/${status}_0.json`;
      await this.adapters.writeJson(Bucket, Key, ofStatus);
      files[status]?.push({ Key, Size: JSON.stringify(ofStatus).length });
    }
    const manifestKey = `${base}/manifest.json`;
    await this.adapters.writeJson(Bucket, manifestKey, { DestinationBucket: Bucket, MapRunArn: mapRunId, ResultFiles: files });
    return { ResultWriterDetails: { Bucket, Key: manifestKey } };
  }
}

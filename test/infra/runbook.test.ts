import { readFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { CfnAlarm, CfnCompositeAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Alarms } from '../../infra/constructs/alarms';
import { allQueues } from '../../shared/queues/queues';
import { STREAM_NAMES } from '../../shared/register/stream/stream-events';
import { allTables } from '../../shared/storage/tables';
import { defaultServiceStack } from '../support/service-stack';

const OPERATIONS = new URL('../../docs/operations.md', import.meta.url);
const EDGE_REGION_MARK = '(us-east-1)';

interface RunbookEntry {
  readonly heading: string;
  /** The alarm names the heading lists; `<function>`, `<table>`, `<queue>`, `<Stream>` stand for each of their kind. */
  readonly names: readonly string[];
  readonly body: string;
}

/** The entries of the "Alarms" section: its `###` headings that name alarms in backticks. */
function runbookEntries(markdown: string): RunbookEntry[] {
  const start = markdown.indexOf('\n## Alarms\n');
  if (start < 0) throw new Error('docs/operations.md has no "Alarms" section');
  const rest = markdown.slice(start + 1);
  const next = rest.slice(3).search(/^## /m);
  const section = next < 0 ? rest : rest.slice(0, next + 3);
  return section
    .split(/^### /m)
    .slice(1)
    .filter((chunk) => chunk.startsWith('`'))
    .map((chunk) => {
      const heading = chunk.slice(0, chunk.indexOf('\n'));
      return { heading, names: [...heading.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string), body: chunk.slice(heading.length) };
    });
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_, _dash, letter: string) => letter.toUpperCase());

/** A runbook name as a pattern over alarm names: each placeholder stands for the ids of its kind, and nothing else. */
function matcher(name: string, kinds: Readonly<Record<string, readonly string[]>>): RegExp {
  const source = name
    .split(/(<[^>]+>)/)
    .map((part) => {
      if (!part.startsWith('<')) return literal(part);
      const ids = kinds[part.slice(1, -1)];
      if (!ids)
        throw new Error(`The runbook name ${name} uses ${part}, which stands for nothing: use one of ${Object.keys(kinds).join(', ')}`);
      return `(?:${ids.map(literal).join('|')})`;
    })
    .join('');
  return new RegExp(`^${source}$`);
}

interface Coverage {
  /** Alarms no entry names. */
  readonly missing: string[];
  /** Names in the runbook that match no alarm. */
  readonly stale: string[];
}

function coverage(
  entries: readonly RunbookEntry[],
  alarms: readonly string[],
  kinds: Readonly<Record<string, readonly string[]>>,
): Coverage {
  const names = entries.flatMap((entry) => entry.names.map((name) => ({ name, pattern: matcher(name, kinds) })));
  return {
    missing: alarms.filter((alarm) => !names.some(({ pattern }) => pattern.test(alarm))),
    stale: names.filter(({ pattern }) => !alarms.some((alarm) => pattern.test(alarm))).map(({ name }) => name),
  };
}

/**
 * Every alarm the template holds, pages included, by the construct id its deployed name carries
 * (`<stack>-Alarms<id>-<suffix>`, a page's `<stack>-page-<id>`).
 */
function alarmsIn(stack: Stack): string[] {
  return stack.node
    .findAll()
    .filter((construct) => construct instanceof CfnAlarm || construct instanceof CfnCompositeAlarm)
    .map((alarm) => (alarm.node.scope as IConstruct).node.id);
}

type Route = 'page' | 'ticket' | 'none';

/** Where each alarm of an Alarms construct goes: a page and the alarms under it page, a ticket tickets, the planned-work alarm nowhere. */
function routesOf(alarms: Alarms): Record<string, Route> {
  return Object.fromEntries(
    alarms.all.map((alarm) => {
      const route: Route =
        alarms.pages.includes(alarm as never) || alarms.pageOf(alarm) ? 'page' : alarms.ticketAlarms.includes(alarm) ? 'ticket' : 'none';
      return [alarm.node.id, route];
    }),
  );
}

/** The route an entry states: `- **Route**: page`, `ticket` or `none`, first word. */
function statedRoute(entry: RunbookEntry): string | undefined {
  return /^- \*\*Route\*\*: \*{0,2}(page|ticket|none)\b/m.exec(entry.body)?.[1];
}

describe('the alarms runbook in docs/operations.md', () => {
  const markdown = readFileSync(OPERATIONS, 'utf8');
  const entries = runbookEntries(markdown);
  let service: string[];
  let edge: string[];
  let kinds: Record<string, readonly string[]>;
  let routes: Record<string, Route>;

  beforeAll(() => {
    const { stack } = defaultServiceStack();
    const edgeStack = new Stack(new App(), 'Edge', { env: { region: 'us-east-1' } });
    const edgeAlarms = new Alarms(edgeStack, 'Alarms');
    edgeAlarms.watchDistribution('E2EXAMPLE123');
    edgeAlarms.watchFirewall('Bureau-edge');
    edgeAlarms.raisePages();
    routes = { ...routesOf(stack.alarms), ...routesOf(edgeAlarms) };
    service = alarmsIn(stack);
    edge = alarmsIn(edgeStack);
    kinds = {
      function: [...stack.functions.keys(), ...stack.registerImport.functions.keys(), ...stack.accountsImport.functions.keys()],
      table: allTables.map((table) => table.id),
      queue: allQueues.map((queue) => queue.id),
      Stream: STREAM_NAMES.map(pascal),
    };
  });

  it('reads the alarms of both regions from their templates', () => {
    expect(service.length).toBeGreaterThan(50);
    expect(new Set(service).size).toBe(service.length);
    expect(edge.sort()).toEqual(['Distribution5xxRate', 'EdgeFailing', 'FirewallBlockedSpike']);
    expect(Object.keys(routes).sort()).toEqual([...service, ...edge].sort());
  });

  it('has an entry for every alarm, and names no alarm that does not exist', () => {
    expect(coverage(entries, [...service, ...edge], kinds)).toEqual({ missing: [], stale: [] });
  });

  it('marks the entries of the us-east-1 alarms, and only those', () => {
    for (const entry of entries) {
      const patterns = entry.names.map((name) => matcher(name, kinds));
      const inEdge = edge.some((alarm) => patterns.some((pattern) => pattern.test(alarm)));
      const inService = service.some((alarm) => patterns.some((pattern) => pattern.test(alarm)));
      expect(entry.heading.includes(EDGE_REGION_MARK), entry.heading).toBe(inEdge && !inService);
    }
  });

  it('says of each entry whether it pages, opens a ticket or notifies no one, as its alarms do', () => {
    for (const entry of entries) {
      const patterns = entry.names.map((name) => matcher(name, kinds));
      const actual = new Set(
        Object.entries(routes).flatMap(([alarm, route]) => (patterns.some((pattern) => pattern.test(alarm)) ? [route] : [])),
      );
      expect([...actual], entry.heading).toHaveLength(1);
      expect(statedRoute(entry), entry.heading).toBe([...actual][0]);
    }
  });

  it('gives each entry what it means, a first command to run, and how to resolve it', () => {
    expect(entries.length).toBeGreaterThan(20);
    for (const entry of entries) {
      const part = (label: string) => entry.body.split(/^- \*\*/m).find((item) => item.startsWith(`${label}**:`));
      expect(part('Means'), entry.heading).toBeDefined();
      expect(part('Resolve'), entry.heading).toBeDefined();
      // A real command: an AWS CLI service and operation, or the operator CLI, in code.
      expect(part('First'), entry.heading).toMatch(/(`[^`]*|```sh[^`]*)\b(aws [a-z0-9-]+ [a-z0-9-]+|npx bureau )/);
    }
  });

  it('fails on an alarm without an entry, and on an entry whose alarm is gone', () => {
    const without = entries.map((entry) => ({ ...entry, names: entry.names.filter((name) => name !== 'AccountConcurrency') }));
    const stale: RunbookEntry = { heading: '`deliveriesQueueLag`', names: ['deliveriesQueueLag', '<queue>QueueLag'], body: '' };
    expect(coverage([...without, stale], [...service, ...edge], kinds)).toEqual({
      missing: ['AccountConcurrency'],
      stale: ['deliveriesQueueLag', '<queue>QueueLag'],
    });
    // A placeholder matches the ids of its kind only: a table's alarm is not a function's.
    expect(matcher('<function>Throttles', kinds).test('companiesTableThrottles')).toBe(false);
    expect(matcher('<table>TableThrottles', kinds).test('companiesTableThrottles')).toBe(true);
    expect(() => matcher('<lambda>Errors', kinds)).toThrow(/stands for nothing/);
  });
});

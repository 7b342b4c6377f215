import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IConfiguration } from 'dependency-cruiser';
import { repositoryRoot } from '../local/paths';

/**
 * docs/architecture.md's "What may import what" is written from the rules dependency-cruiser checks
 * (.dependency-cruiser.mjs), so the two cannot drift: `npx tsx tools/dependency-rules-table.ts`
 * rewrites the section, and test/unit/architecture/dependency-rules.test.ts fails while it is stale.
 */

export const ARCHITECTURE_DOC = join(repositoryRoot, 'docs', 'architecture.md');
const START = '<!-- dependency-rules:start -->';
const END = '<!-- dependency-rules:end -->';

export interface DependencyRules {
  readonly config: IConfiguration;
  readonly lambdaEdgeAdapters: Readonly<Record<string, string>>;
  readonly cruisedFolders: readonly string[];
}

export const DEPENDENCY_RULES_FILE = join(repositoryRoot, '.dependency-cruiser.mjs');

export async function loadDependencyRules(file = DEPENDENCY_RULES_FILE): Promise<DependencyRules> {
  const module = await import(pathToFileURL(file).href);
  return { config: module.default, lambdaEdgeAdapters: module.LAMBDA_EDGE_ADAPTERS, cruisedFolders: module.CRUISED_FOLDERS };
}

/** What this table reads of a forbidden rule: every rule of .dependency-cruiser.mjs has this shape. */
interface PathRestriction {
  readonly path?: string | string[];
  readonly pathNot?: string | string[];
}
interface Rule {
  readonly name?: string;
  readonly comment?: string;
  readonly scope?: 'module' | 'folder';
  readonly from: PathRestriction;
  readonly to: PathRestriction & {
    readonly dependencyTypes?: string[];
    readonly circular?: boolean;
    readonly couldNotResolve?: boolean;
    readonly reachable?: boolean;
  };
}

/**
 * The alternatives of a rule's `^(?:a|b|…)` pattern, as paths a reader knows. A segment captured in
 * `from` is `<name>`, and so is the same segment named again in `to` ($1); any other is `*`.
 */
function pathsOf(pattern: string | string[] | undefined, side: 'from' | 'to'): string[] {
  if (pattern === undefined) return [];
  const text = Array.isArray(pattern) ? pattern.join('|') : pattern;
  const inner = /^\^\(\?:(.*)\)$/.exec(text)?.[1];
  if (inner === undefined) return [`\`${text}\``];
  return inner.split('|').map((alternative) => {
    const path = alternative
      .replaceAll('\\.', '.')
      .replace(/\$$/, '')
      .replace('([^/]+)', side === 'from' ? '<name>' : '*')
      .replace('$1', '<name>');
    if (path === 'node_modules/') return 'packages';
    if (path === 'node_modules/@types/') return 'type packages (`@types/…`)';
    const typesPackage = /^node_modules\/@types\/([^/]+)\/$/.exec(path);
    if (typesPackage) return `\`${typesPackage[1]}\` types`;
    const npmPackage = /^node_modules\/((?:@[^/]+\/)?[^/]+)\/$/.exec(path);
    if (npmPackage) return `\`${npmPackage[1]}\``;
    return `\`${path}\``;
  });
}

const list = (paths: readonly string[]) => paths.join(', ');

function fromCell({ from, scope }: Rule, adapters: readonly string[]): string {
  const included = pathsOf(from.path, 'from');
  const excluded = pathsOf(from.pathNot, 'from');
  const isAdapterList = excluded.length === adapters.length && adapters.every((file) => excluded.includes(`\`${file}\``));
  const except = isAdapterList ? 'the Lambda edge adapters below' : list(excluded);
  if (included.length > 0 && excluded.length > 0) return `${list(included)}, except ${except}`;
  if (included.length > 0) return list(included);
  if (excluded.length > 0) return `anything but ${except}`;
  return scope === 'folder' ? 'any folder' : 'any module';
}

function toCell({ to, scope }: Rule): string {
  if (to.circular)
    return scope === 'folder' ? 'a folder that depends on it in turn (a cycle)' : 'a module that imports it in turn (a cycle)';
  if (to.couldNotResolve) return 'a module that does not exist';
  const included = pathsOf(to.path, 'to');
  const excluded = pathsOf(to.pathNot, 'to');
  let cell: string;
  if (to.dependencyTypes?.includes('npm-dev')) cell = 'a devDependency';
  else if (to.dependencyTypes?.includes('npm-no-pkg')) cell = 'a package package.json does not list';
  else if (included.length > 0) cell = list(included);
  else cell = `anything but ${list(excluded)}`;
  if (to.dependencyTypes && excluded.length > 0) cell += `, except ${list(excluded)}`;
  else if (included.length > 0 && excluded.length > 0) cell += `, except ${list(excluded)}`;
  return to.reachable ? `${cell}, even indirectly` : cell;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The section between the markers: the rules, then the adapters that may name Lambda's event types. */
export function dependencyRulesSection({ config, lambdaEdgeAdapters }: DependencyRules): string {
  const adapters = Object.keys(lambdaEdgeAdapters);
  const rows = ((config.forbidden ?? []) as readonly Rule[]).map(
    (rule) => `| \`${rule.name}\` | ${cell(fromCell(rule, adapters))} | ${cell(toCell(rule))} | ${cell(rule.comment ?? '')} |`,
  );
  const adapterRows = Object.entries(lambdaEdgeAdapters)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, reason]) => `| \`${file}\` | ${cell(reason)} |`);
  return [
    START,
    '| Rule | From | Must not import | Why |',
    '|---|---|---|---|',
    ...rows,
    '',
    "Node's built-in modules are allowed everywhere. The Lambda edge adapters, the only modules of `shared/` that name `aws-lambda` types:",
    '',
    '| Adapter | Why |',
    '|---|---|',
    ...adapterRows,
    END,
  ].join('\n');
}

/** The section as the document has it now, markers included; undefined without markers. */
export function documentedSection(document: string): string | undefined {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  return start < 0 || end < start ? undefined : document.slice(start, end + END.length);
}

async function main(): Promise<void> {
  const document = readFileSync(ARCHITECTURE_DOC, 'utf8');
  const current = documentedSection(document);
  if (current === undefined) throw new Error(`${ARCHITECTURE_DOC} has no ${START} … ${END} section`);
  writeFileSync(ARCHITECTURE_DOC, document.replace(current, dependencyRulesSection(await loadDependencyRules())));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../../local/paths';
import {
  ARCHITECTURE_DOC,
  DEPENDENCY_RULES_FILE,
  type DependencyRules,
  dependencyRulesSection,
  documentedSection,
  loadDependencyRules,
} from '../../../tools/dependency-rules-table';

/** Each violation as `rule: from → to`, the way `npm run lint:deps` names it. */
function violationsOf(result: ICruiseResult): string[] {
  return [...new Set(result.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`))].sort();
}

async function cruiseWithTheRules(folders: readonly string[], baseDir: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(DEPENDENCY_RULES_FILE);
  const { output } = await cruise([...folders], { ...options, baseDir });
  return output as ICruiseResult;
}

/** A package in the fixture's node_modules: enough for the resolver to find it and the rules to classify it. */
function fakePackage(name: string, entry = 'index.js'): Record<string, string> {
  return {
    [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: '1.0.0', main: entry }),
    [`node_modules/${name}/${entry}`]: entry.endsWith('.d.ts') ? 'export interface Context {}\n' : 'export const value = 1;\n',
  };
}

/** A repository in miniature, importing only what the rules allow. The rules are the real ones. */
const ALLOWED: Record<string, string> = {
  'package.json': JSON.stringify({
    name: 'fixture',
    type: 'module',
    dependencies: { 'aws-cdk-lib': '1.0.0' },
    devDependencies: { vitest: '1.0.0', '@types/aws-lambda': '1.0.0' },
  }),
  ...fakePackage('aws-cdk-lib'),
  ...fakePackage('vitest'),
  ...fakePackage('left-pad'),
  ...fakePackage('@types/aws-lambda', 'index.d.ts'),

  'shared/domain/profile.ts': 'export const profile = 1;\n',
  'shared/http/lambda.ts':
    "import type { Context } from 'aws-lambda';\nimport { profile } from '../domain/profile';\nexport const edge = (c: Context) => [c, profile];\n",
  'functions/protection.ts': "import { profile } from '../shared/domain/profile';\nexport const protection = profile;\n",
  'functions/profile/handler.ts':
    "import type { Context } from 'aws-lambda';\nimport { profile } from '../../shared/domain/profile';\nimport { protection } from '../protection';\nimport { helper } from './helper';\nexport const handler = (c: Context) => [c, profile, protection, helper];\n",
  'functions/profile/helper.ts': 'export const helper = 1;\n',
  'infra/catalogue.ts': "import { profile } from '../shared/domain/profile';\nexport const catalogue = profile;\n",
  'infra/stack.ts':
    "import { value } from 'aws-cdk-lib';\nimport { catalogue } from './catalogue';\nexport const stack = [value, catalogue];\n",
  'local/paths.ts': 'export const paths = 1;\n',
  'local/runtime.ts':
    "import { catalogue } from '../infra/catalogue';\nimport { seed } from '../demo/seed';\nexport const runtime = [catalogue, seed];\n",
  'cli/main.ts':
    "import { paths } from '../local/paths';\nimport { catalogue } from '../infra/catalogue';\nexport const main = [paths, catalogue];\n",
  'demo/seed.ts': "import { profile } from '../shared/domain/profile';\nexport const seed = profile;\n",
  'test/support/fixture.ts': "import { seed } from '../../demo/seed';\nexport const fixture = seed;\n",
  'tools/report.ts':
    "import { seed } from '../demo/seed';\nimport { paths } from '../local/paths';\nexport const report = [seed, paths];\n",
};

/** One wrong import (or more) for each rule to catch, planted in the same tree. */
const PLANTED: Record<string, string> = {
  'shared/domain/reaches-local.ts': "import { runtime } from '../../local/runtime';\nexport const wrong = runtime;\n",
  'functions/search/handler.ts':
    "import { seed } from '../../demo/seed';\nimport { helper } from '../profile/helper';\nexport const handler = [seed, helper];\n",
  'infra/constructs/stream.ts': "import { helper } from '../../functions/profile/helper';\nexport const construct = helper;\n",
  'local/reaches-cdk.ts': "import { stack } from '../infra/stack';\nexport const wrong = stack;\n",
  'cli/reaches-runtime.ts': "import { runtime } from '../local/runtime';\nexport const wrong = runtime;\n",
  'demo/reaches-cli.ts': "import { main } from '../cli/main';\nexport const wrong = main;\n",
  'shared/domain/dev-tool.ts': "import { value } from 'vitest';\nexport const wrong = value;\n",
  'shared/domain/undeclared.ts': "import { value } from 'left-pad';\nexport const wrong = value;\n",
  'shared/domain/lambda-types.ts': "import type { Context } from 'aws-lambda';\nexport type Wrong = Context;\n",
  'shared/domain/test-helper.ts': "import { fixture } from '../../test/support/fixture';\nexport const wrong = fixture;\n",
  'local/script-user.ts': "import { script } from '../tools/script';\nexport const wrong = script;\n",
  'tools/script.ts': 'export const script = 1;\n',
  'shared/domain/missing.ts': "import { nothing } from './not-there';\nexport const wrong = nothing;\n",
  'shared/cycle/one.ts': "import { two } from './two';\nexport const one = () => two;\n",
  'shared/cycle/two.ts': "import { one } from './one';\nexport const two = () => one;\n",
  // Two folders each using the other, through different modules: no module cycle, a folder cycle.
  'shared/companies/store.ts': "import { watch } from '../watches/watch';\nexport const store = watch;\n",
  'shared/companies/profile.ts': 'export const company = 1;\n',
  'shared/watches/watch.ts': "import { company } from '../companies/profile';\nexport const watch = company;\n",
};

const FIXTURE_FOLDERS = ['functions', 'shared', 'infra', 'local', 'cli', 'demo', 'tools', 'test'];

/** Writes the files into a new folder and cruises it with the repository's rules. */
async function violationsIn(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'bureau-dependency-rules-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return violationsOf(await cruiseWithTheRules(FIXTURE_FOLDERS, root));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('the dependency rules (.dependency-cruiser.mjs)', () => {
  let planted: string[];

  beforeAll(async () => {
    planted = await violationsIn({ ...ALLOWED, ...PLANTED });
  }, 60_000);

  it('let every legitimate import through', async () => {
    expect(await violationsIn(ALLOWED)).toEqual([]);
  }, 60_000);

  it.each([
    ['shared-imports-only-shared', 'shared/domain/reaches-local.ts → local/runtime.ts'],
    ['functions-import-only-shared', 'functions/search/handler.ts → demo/seed.ts'],
    ['demo-only-for-local-cli-tools-tests', 'functions/search/handler.ts → demo/seed.ts'],
    ['functions-import-no-other-function', 'functions/search/handler.ts → functions/profile/helper.ts'],
    ['infra-imports-only-shared', 'infra/constructs/stream.ts → functions/profile/helper.ts'],
    ['local-imports', 'local/reaches-cdk.ts → infra/stack.ts'],
    ['cdk-only-in-infra', 'local/reaches-cdk.ts → node_modules/aws-cdk-lib/index.js'],
    ['cli-imports', 'cli/reaches-runtime.ts → local/runtime.ts'],
    ['demo-imports-only-shared', 'demo/reaches-cli.ts → cli/main.ts'],
    ['deployed-code-uses-no-dev-dependency', 'shared/domain/dev-tool.ts → node_modules/vitest/index.js'],
    ['deployed-code-uses-declared-packages', 'shared/domain/undeclared.ts → node_modules/left-pad/index.js'],
    ['aws-lambda-types-only-at-the-edge', 'shared/domain/lambda-types.ts → node_modules/@types/aws-lambda/index.d.ts'],
    ['test-code-only-in-tests', 'shared/domain/test-helper.ts → test/support/fixture.ts'],
    ['tools-are-entry-points', 'local/script-user.ts → tools/script.ts'],
    ['imports-resolve', 'shared/domain/missing.ts → ./not-there'],
    ['no-module-cycles', 'shared/cycle/one.ts → shared/cycle/two.ts'],
    ['no-folder-cycles', 'shared/companies → shared/watches'],
  ])('%s catches %s', (rule, crossing) => {
    expect(planted).toContain(`${rule}: ${crossing}`);
  });

  it('hold for the repository itself', async () => {
    const rules = await loadDependencyRules();

    const result = await cruiseWithTheRules(rules.cruisedFolders, repositoryRoot);

    expect(result.summary.totalCruised).toBeGreaterThan(300);
    expect(violationsOf(result)).toEqual([]);
  }, 120_000);

  it('are what `npm run lint:deps` checks, over the same folders', async () => {
    const { cruisedFolders } = await loadDependencyRules();
    const script = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')).scripts['lint:deps'] as string;

    expect(script).toBe(`depcruise --config .dependency-cruiser.mjs --output-type err-long ${cruisedFolders.join(' ')}`);
  });

  it('are the table docs/architecture.md shows (npx tsx tools/dependency-rules-table.ts rewrites it)', async () => {
    const rules: DependencyRules = await loadDependencyRules();

    expect(documentedSection(readFileSync(ARCHITECTURE_DOC, 'utf8'))).toBe(dependencyRulesSection(rules));
  });
});

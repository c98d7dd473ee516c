// The boundary check (.dependency-cruiser.cjs, run by `npm run lint:deps`) can fail, and the
// repository passes it. The first block cruises a small planted tree, laid out like the repository
// and read with its real package.json, tsconfig.json and rules, where every forbidden import sits
// beside an allowed one of the same kind: the check must name exactly the forbidden ones, each under
// its rule. The second block cruises the repository itself.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';

const run = promisify(execFile);
const CRUISER = path.join(repoRoot, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = path.join(repoRoot, '.dependency-cruiser.cjs');
const CRUISE_TIMEOUT_MS = 120_000;

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

interface CruiseResult {
  summary: { violations: Violation[]; totalCruised: number };
  modules: { source: string; dependencies: { resolved: string; module: string }[] }[];
}

/** Runs the command line the lint script runs, with the repository's rules, from `cwd`. */
async function cruise(cwd: string): Promise<CruiseResult> {
  const { stdout } = await run(process.execPath, [CRUISER, '--config', CONFIG, '--output-type', 'json', '.'], {
    cwd,
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(stdout) as CruiseResult;
}

function described(violations: Violation[]): string[] {
  return violations.map(({ rule, from, to }) => `${rule.name}: ${from} -> ${to}`).sort();
}

/** The planted tree: file -> source. Each forbidden import has an allowed twin. */
const PLANTED: Record<string, string> = {
  // Browser code and the server.
  'gateway/src/server-only.ts': 'export const serverOnly = 1;\n',
  'web/src/lib/view.ts': 'export const view = 1;\n',
  'web/src/reads-gateway.ts':
    "import { serverOnly } from '#gateway/src/server-only.ts';\nexport const a = serverOnly;\n",
  'web/src/reads-node.ts': "import { readFileSync } from 'node:fs';\nexport const b = readFileSync;\n",
  'web/src/reads-gateway.test.ts':
    "import { serverOnly } from '#gateway/src/server-only.ts';\nimport { readFileSync } from 'node:fs';\nexport const c = [serverOnly, readFileSync];\n",
  'companion/ui/src/reads-config.ts': "import type { Env } from '#config/env.ts';\nexport type D = Env;\n",
  'config/env.ts': 'export type Env = { PORT: number };\n',
  // config/ and the parts it configures: db/ may read config/, never the other way.
  'db/paths.ts': 'export const repoRoot = "/";\n',
  'db/reads-config.ts': "import type { Env } from '#config/env.ts';\nexport type DbEnv = Env;\n",
  'config/reads-db.ts': "import { repoRoot } from '#db/paths.ts';\nexport const root = repoRoot;\n",
  'config/reads-node.ts': "import path from 'node:path';\nexport const sep = path.sep;\n",
  'web/scripts/node-script.ts': "import { readFileSync } from 'node:fs';\nexport const e = readFileSync;\n",

  // The companion and the web app.
  'companion/core/reads-web.ts': "import { view } from '#web/src/lib/view.ts';\nexport const f = view;\n",
  'companion/core/reads-web.test.ts': "import { view } from '#web/src/lib/view.ts';\nexport const g = view;\n",
  'companion/core/reads-contracts.ts': "import { wire } from '#contracts/wire.ts';\nexport const h = wire;\n",

  // Product code and tools/.
  'tools/testing/helper.ts': 'export const helper = 1;\n',
  'gateway/src/uses-tools.ts': "import { helper } from '#tools/testing/helper.ts';\nexport const i = helper;\n",
  'gateway/test/uses-tools.ts': "import { helper } from '#tools/testing/helper.ts';\nexport const j = helper;\n",
  'tools/bench/uses-gateway.bench.ts':
    "import { serverOnly } from '#gateway/src/server-only.ts';\nexport const k = serverOnly;\n",

  // localbase's public entry and its insides (the two rest files form the one cycle the rules let through).
  'localbase/server.ts':
    "export { internal } from './src/rest/catalog.ts';\nexport { timeouts } from './src/request-transaction.ts';\n",
  'localbase/src/rest/catalog.ts':
    "import type { Relationship } from './relationships.ts';\nimport { extra } from './extra.ts';\nexport const internal = extra;\nexport type Table = { relationship?: Relationship };\n",
  'localbase/src/rest/relationships.ts':
    "import type { Table } from './catalog.ts';\nexport type Relationship = { table?: Table };\n",
  'localbase/src/rest/extra.ts':
    "import { internal } from './catalog.ts';\nexport const extra = 1;\nexport const again = () => internal;\n",
  'localbase/src/request-transaction.ts': 'export const timeouts = { anon: 3000 };\n',
  'localbase/src/keys.ts': 'export const keysFile = (dir: string) => `${dir}/keys.json`;\n',
  'localbase/test/clients.ts': "import { internal } from '../src/rest/catalog.ts';\nexport const client = internal;\n",
  'gateway/src/uses-localbase.ts': "import { internal } from '#localbase';\nexport const l = internal;\n",
  'gateway/src/reaches-localbase.ts':
    "import { internal } from '#localbase/src/rest/catalog.ts';\nexport const m = internal;\n",
  'gateway/src/uses-localbase-test.ts':
    "import { client } from '#localbase/test/clients.ts';\nexport const n = client;\n",
  'gateway/test/uses-localbase-test.ts':
    "import { client } from '#localbase/test/clients.ts';\nexport const o = client;\n",
  'tools/security/attacks/statement-freeze.parity.test.ts':
    "import { timeouts } from '#localbase/src/request-transaction.ts';\nimport { keysFile } from '#localbase/src/keys.ts';\nexport const p = [timeouts, keysFile];\n",

  // Cycles, and contracts.
  'gateway/src/cycle-a.ts': "import { b } from './cycle-b.ts';\nexport const a = () => b;\n",
  'gateway/src/cycle-b.ts': "import { a } from './cycle-a.ts';\nexport const b = () => a;\n",
  'contracts/wire.ts':
    "import { z } from 'zod';\nimport { other } from './other.ts';\nexport const wire = z.object({ other: z.literal(other) });\n",
  'contracts/other.ts': "export const other = 'x';\n",
  'contracts/reads-gateway.ts':
    "import { serverOnly } from '#gateway/src/server-only.ts';\nexport const q = serverOnly;\n",
  'contracts/reads-node.ts': "import path from 'node:path';\nexport const r = path.sep;\n",
  // An import that leaves its part by climbing instead of through the imports map; its twin uses the alias.
  'gateway/src/climbs.ts': "import type { Env } from '../../config/env.ts';\nexport type T = Env;\n",
  'gateway/src/uses-config.ts': "import type { Env } from '#config/env.ts';\nexport type U = Env;\n",
  'gateway/src/broken.ts': "import { gone } from './missing.ts';\nexport const s = gone;\n",
};

describe('the boundary check on a planted tree', () => {
  let dir: string;
  let result: CruiseResult;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'studyhall-boundaries-'));
    await copyFile(path.join(repoRoot, 'package.json'), path.join(dir, 'package.json'));
    await copyFile(path.join(repoRoot, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
    await symlink(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
    for (const [file, source] of Object.entries(PLANTED)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), source);
    }
    result = await cruise(dir);
  }, CRUISE_TIMEOUT_MS);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // A cycle is reported once, at its first edge; a builtin by its name without `node:`.
  it('reports exactly the forbidden imports, each under its rule', () => {
    expect(described(result.summary.violations)).toEqual(
      [
        'browser-not-to-server: web/src/reads-gateway.ts -> gateway/src/server-only.ts',
        'browser-not-to-server: companion/ui/src/reads-config.ts -> config/env.ts',
        'browser-not-to-node: web/src/reads-node.ts -> fs',
        'config-stand-alone: config/reads-db.ts -> db/paths.ts',
        'companion-not-to-web: companion/core/reads-web.ts -> web/src/lib/view.ts',
        'companion-not-to-web: companion/core/reads-web.test.ts -> web/src/lib/view.ts',
        'product-not-to-tools: gateway/src/uses-tools.ts -> tools/testing/helper.ts',
        'localbase-only-through-server: gateway/src/reaches-localbase.ts -> localbase/src/rest/catalog.ts',
        'localbase-only-through-server: tools/security/attacks/statement-freeze.parity.test.ts -> localbase/src/keys.ts',
        'localbase-test-helpers-only-in-tests: gateway/src/uses-localbase-test.ts -> localbase/test/clients.ts',
        'no-circular: gateway/src/cycle-a.ts -> gateway/src/cycle-b.ts',
        'no-circular: localbase/src/rest/catalog.ts -> localbase/src/rest/extra.ts',
        'contracts-stand-alone: contracts/reads-gateway.ts -> gateway/src/server-only.ts',
        'contracts-stand-alone: contracts/reads-node.ts -> path',
        'not-to-unresolvable: gateway/src/broken.ts -> ./missing.ts',
        'cross-part-through-imports-map: gateway/src/climbs.ts -> config/env.ts',
      ].sort(),
    );
  });

  it('resolves the package.json aliases and npm packages, so no rule is blind to them', () => {
    const resolved = (source: string) =>
      result.modules.find((module) => module.source === source)?.dependencies.map((dependency) => dependency.resolved);
    expect(resolved('gateway/src/uses-localbase.ts')).toEqual(['localbase/server.ts']);
    expect(resolved('companion/core/reads-contracts.ts')).toEqual(['contracts/wire.ts']);
    expect(resolved('contracts/wire.ts')).toEqual(
      expect.arrayContaining(['contracts/other.ts', expect.stringMatching(/^node_modules\/zod\//)]),
    );
  });
});

describe('the boundary check on the repository', () => {
  it(
    'finds no violation',
    async () => {
      const result = await cruise(repoRoot);
      expect(described(result.summary.violations)).toEqual([]);
      // It did cruise the parts: the gateway, localbase, the web app, the companion and the tools.
      const sources = result.modules.map((module) => module.source);
      for (const file of [
        'gateway/src/app.ts',
        'localbase/server.ts',
        'web/src/state/signals.ts',
        'companion/core/pip-client.ts',
        'tools/e2e/browser.ts',
      ]) {
        expect(sources).toContain(file);
      }
    },
    CRUISE_TIMEOUT_MS,
  );
});

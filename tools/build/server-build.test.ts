// The compiled server's build step on a small project of its own: it bundles TypeScript that
// imports TypeScript and npm packages (one bundled, one left external), runs, rebuilds only when a
// file it read (or a settings file) is newer, swaps builds atomically through CURRENT and keeps
// only a few old ones. And the real thing it must get right beyond bundling: PGlite's worker
// thread, built beside the server, found and started by the bundled engine.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import {
  buildServer,
  currentBuildDir,
  ensureServerBuild,
  EXTERNAL_PACKAGES,
  staleReason,
  WORKER_ENTRY_POINTS,
  type BuildLayout,
} from './server-build.mjs';

const run = promisify(execFile);

let project: string;
let layout: BuildLayout;

/** Moves a file's modification time `seconds` into the future (or past). */
async function shiftMtime(file: string, seconds: number): Promise<void> {
  const when = new Date(Date.now() + seconds * 1000);
  await utimes(file, when, when);
}

beforeAll(async () => {
  // Inside the checkout (.tmp is git-ignored), so the npm imports resolve from its node_modules.
  await mkdir(path.join(repoRoot, '.tmp'), { recursive: true });
  project = await mkdtemp(path.join(repoRoot, '.tmp', 'server-build-'));
  await mkdir(path.join(project, 'src'), { recursive: true });
  await writeFile(
    path.join(project, 'src', 'main.ts'),
    `import { greeting } from './greeting.ts';\nexport const text: string = greeting('build');\n`,
  );
  // zod is bundled (ES module); pg is bundled CommonJS that require()s Node's own modules; uqr stays external.
  await writeFile(
    path.join(project, 'src', 'greeting.ts'),
    `import { z } from 'zod';\nimport pg from 'pg';\nimport { encode } from 'uqr';\n` +
      `export const greeting = (name: string) => \`hello \${z.string().parse(name)}, \${typeof pg.Pool}, \${encode('x').size}\`;\n`,
  );
  await writeFile(path.join(project, 'src', 'unrelated.ts'), `export const unused = 1;\n`);
  await writeFile(path.join(project, 'settings.json'), '{}\n');
  layout = {
    repoDir: project,
    buildRoot: path.join(project, '.build'),
    entryPoints: { main: 'src/main.ts' },
    settingsFiles: ['settings.json', 'absent-lockfile.json'],
    external: ['uqr'],
  };
});

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the server build', () => {
  it('builds when there is no build, bundling npm packages except the external ones, and the output runs', async () => {
    expect(await staleReason(layout)).toBe('no build yet');
    const lines: string[] = [];
    const dir = await ensureServerBuild((line) => lines.push(line), layout);
    expect(lines).toEqual([
      expect.stringMatching(/^studyhall: compiled the server into \.build\/[\w-]+ in \d+ ms \(no build yet\)$/),
    ]);
    expect(await currentBuildDir(layout)).toBe(dir);
    const built = await readFile(path.join(dir, 'main.js'), 'utf8');
    expect(built).not.toMatch(/from ?"zod"/);
    expect(built).toMatch(/from ?"uqr"/);
    // In a node of its own, as npm start runs it: the test runner's module wrapper provides a require().
    const script = `import(${JSON.stringify(pathToFileURL(path.join(dir, 'main.js')).href)}).then((m) => console.log(m.text))`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    expect(stdout.trim()).toBe('hello build, function, 23');
  });

  it('is fresh until a file it read or a settings file is newer; other files never rebuild it', async () => {
    // Fresh although a settings file is absent and the bundled package's files are not compared.
    expect(await staleReason(layout)).toBeUndefined();
    await shiftMtime(path.join(layout.repoDir, 'src', 'unrelated.ts'), 60);
    expect(await staleReason(layout)).toBeUndefined();
    await shiftMtime(path.join(layout.repoDir, 'src', 'greeting.ts'), 60);
    expect(await staleReason(layout)).toBe('src/greeting.ts changed');
    const lines: string[] = [];
    await ensureServerBuild((line) => lines.push(line), layout);
    // The shifted time is still ahead of this build's start, so it stays stale until time passes it;
    // put it back in the past and the new build is fresh.
    await shiftMtime(path.join(layout.repoDir, 'src', 'greeting.ts'), -60);
    expect(lines[0]).toContain('(src/greeting.ts changed)');
    expect(await staleReason(layout)).toBeUndefined();
    await shiftMtime(path.join(layout.repoDir, 'settings.json'), 60);
    expect(await staleReason(layout)).toBe('settings.json changed');
    await shiftMtime(path.join(layout.repoDir, 'settings.json'), -60);
  });

  it('points CURRENT at the newest build and keeps two old builds besides it', async () => {
    for (let round = 0; round < 4; round += 1) await buildServer(layout);
    const newest = await buildServer(layout);
    expect(await currentBuildDir(layout)).toBe(newest);
    const entries = await readdir(layout.buildRoot, { withFileTypes: true });
    expect(entries.filter((entry) => entry.isDirectory())).toHaveLength(3);
    expect(entries.filter((entry) => entry.isFile()).map((entry) => entry.name)).toEqual(['CURRENT']);
  });

  it('reports a compile error and leaves the current build in place', async () => {
    const before = await currentBuildDir(layout);
    await writeFile(path.join(layout.repoDir, 'src', 'greeting.ts'), 'export const greeting = (name: string) => {\n');
    await expect(buildServer(layout)).rejects.toThrow(/greeting\.ts/);
    expect(await currentBuildDir(layout)).toBe(before);
    const folders = (await readdir(layout.buildRoot, { withFileTypes: true })).filter((entry) => entry.isDirectory());
    expect(folders).toHaveLength(3);
  });
});

describe("PGlite's worker thread in the build", () => {
  it('is bundled beside the server, and the bundled engine finds it and opens PGlite with it', async () => {
    const relative = (file: string) => path.relative(project, path.join(repoRoot, file));
    await writeFile(
      path.join(project, 'src', 'probe.ts'),
      `import pg from 'pg';\nimport { enginePoolConfig, PgliteEngine } from ${JSON.stringify(relative('db/pglite-engine.ts').replace(/^/, '../'))};\n` +
        `const engine = new PgliteEngine({ pgdata: 'memory://' });\nawait engine.start();\n` +
        `const pool = new pg.Pool(enginePoolConfig(engine));\nconst { rows } = await pool.query('select 40 + 2 as n');\n` +
        `await pool.end();\nawait engine.close();\nconsole.log(rows[0].n);\n`,
    );
    const probeLayout: BuildLayout = {
      repoDir: project,
      buildRoot: path.join(project, '.build-probe'),
      entryPoints: {
        probe: 'src/probe.ts',
        ...Object.fromEntries(Object.entries(WORKER_ENTRY_POINTS).map(([name, file]) => [name, relative(file)])),
      },
      settingsFiles: [],
      external: EXTERNAL_PACKAGES,
    };
    const dir = await buildServer(probeLayout);
    expect(await readdir(dir)).toContain('pglite-worker.js');
    const { stdout } = await run(process.execPath, [path.join(dir, 'probe.js')], { timeout: 150_000 });
    expect(stdout.trim()).toBe('42');
  }, 180_000);
});

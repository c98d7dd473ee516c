// The Vite builds `npm start`'s launcher keeps fresh (the web app, the phone remote): stale without
// a stamped build or once a source is newer than the build's start, fresh otherwise, whatever the
// tests, dotfiles or old output under the source folders do; and a real build on a tiny project
// stamps its output and is then left alone.
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { STAMP_FILE, writeBuildStamp } from './freshness.mjs';
import { ensureViteBuild, hasSources, staleReason, VITE_BUILDS, type ViteBuild } from './vite-build.mjs';

let temp: { dir: string };

async function write(relative: string, content: string, mtimeSeconds: number) {
  const file = path.join(temp.dir, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  await utimes(file, mtimeSeconds, mtimeSeconds);
}

/** Folders keep the time of their last entry change; set them back so only files decide. */
async function ageFolders(relativeFolders: string[], mtimeSeconds: number) {
  for (const folder of relativeFolders) await utimes(path.join(temp.dir, folder), mtimeSeconds, mtimeSeconds);
}

async function stampBuild(build: ViteBuild, startedAtSeconds: number) {
  await mkdir(path.join(temp.dir, build.outDir), { recursive: true });
  await writeBuildStamp(path.join(temp.dir, build.outDir), startedAtSeconds * 1000);
}

beforeEach(async () => {
  temp = { dir: await mkdtemp(path.join(os.tmpdir(), 'studyhall-vite-build-')) };
});
afterEach(() => rm(temp.dir, { recursive: true, force: true }));

describe('the web app build', () => {
  const web = VITE_BUILDS.web;

  it('calls a checkout without web sources nothing to build, and leaves it alone', async () => {
    expect(await hasSources(web, temp.dir)).toBe(false);
    expect(await ensureViteBuild(web, () => {}, temp.dir)).toBe(false);
  });

  it('is stale when web/dist has no stamp (never built, or a build cut short)', async () => {
    await write('web/index.html', '<html></html>', 1000);
    await write('web/vite.config.ts', 'export default {};', 1000);
    await write('web/dist/index.html', 'built', 2000);
    expect(await staleReason(web, temp.dir)).toBe('no build yet');
  });

  it('is fresh when the build started after every source, and stale once any source changes', async () => {
    await write('web/index.html', '<html></html>', 1000);
    await write('web/vite.config.ts', 'export default {};', 1000);
    await write('web/src/main.tsx', 'render()', 1000);
    await write('web/src/routes/focus/FocusPage.tsx', 'export default 1', 1000);
    await ageFolders(['web/src/routes/focus', 'web/src/routes', 'web/src'], 1000);
    await stampBuild(web, 2000);
    expect(await staleReason(web, temp.dir)).toBeUndefined();
    await write('web/src/routes/focus/FocusPage.tsx', 'export default 2', 3000);
    expect(await staleReason(web, temp.dir)).toBe('web/src changed');
  });

  it('is stale when a public file or the Vite config is newer than the build, or a required source is gone', async () => {
    await write('web/index.html', '<html></html>', 1000);
    await write('web/vite.config.ts', 'export default {};', 1000);
    await stampBuild(web, 2000);
    expect(await staleReason(web, temp.dir)).toBeUndefined();
    await write('web/public/icon.svg', '<svg/>', 3000);
    expect(await staleReason(web, temp.dir)).toBe('web/public changed');
    await rm(path.join(temp.dir, 'web/public'), { recursive: true });
    await write('web/vite.config.ts', 'export default { base: "/" };', 3000);
    expect(await staleReason(web, temp.dir)).toBe('web/vite.config.ts changed');
    await rm(path.join(temp.dir, 'web/index.html'));
    expect(await staleReason(web, temp.dir)).toBe('web/index.html changed');
  });

  it('never rebuilds for a test file, a dotfile or old output under the sources', async () => {
    await write('web/index.html', '<html></html>', 1000);
    await write('web/vite.config.ts', 'export default {};', 1000);
    await write('web/src/main.tsx', 'render()', 1000);
    await ageFolders(['web/src'], 1000);
    await stampBuild(web, 2000);
    await write('web/src/main.test.tsx', 'test()', 3000);
    await write('web/src/.eslintcache', '{}', 3000);
    await write('web/src/node_modules/x/index.js', '', 3000);
    await ageFolders(['web/src'], 1000);
    expect(await staleReason(web, temp.dir)).toBeUndefined();
  });
});

describe('the phone remote build', () => {
  const companion = VITE_BUILDS.companion;

  it('is stale when its own sources or companion/core change, not for its dist or tests', async () => {
    await write('companion/ui/vite.config.ts', 'export default {};', 1000);
    await write('companion/ui/src/main.tsx', 'render()', 1000);
    await write('companion/core/actions.ts', 'export {}', 1000);
    await ageFolders(['companion/ui/src', 'companion/core', 'companion/ui', 'companion'], 1000);
    expect(await staleReason(companion, temp.dir)).toBe('no build yet');
    await stampBuild(companion, 2000);
    await ageFolders(['companion/ui'], 1000);
    expect(await staleReason(companion, temp.dir)).toBeUndefined();
    await write('companion/ui/dist/index.html', 'built', 3000);
    await write('companion/core/actions.test.ts', 'test()', 3000);
    await ageFolders(['companion/ui', 'companion/core'], 1000);
    expect(await staleReason(companion, temp.dir)).toBeUndefined();
    await write('companion/core/actions.ts', 'export const a = 1;', 3000);
    expect(await staleReason(companion, temp.dir)).toBe('companion/core changed');
  });
});

describe('a real Vite build', () => {
  it('builds a tiny project when stale, stamps it with its start, and then leaves it alone', async () => {
    // Inside the checkout (.tmp is git-ignored), so the project's config resolves Vite from its node_modules.
    await mkdir(path.join(repoRoot, '.tmp'), { recursive: true });
    const project = path.join(repoRoot, '.tmp', `vite-build-${process.pid}`);
    try {
      await mkdir(path.join(project, 'app'), { recursive: true });
      await writeFile(
        path.join(project, 'app', 'index.html'),
        '<!doctype html><script type="module" src="./main.js"></script>\n',
      );
      await writeFile(path.join(project, 'app', 'main.js'), 'document.title = "tiny";\n');
      await writeFile(
        path.join(project, 'app', 'vite.config.mjs'),
        `export default { root: import.meta.dirname, logLevel: 'warn', build: { outDir: 'dist', emptyOutDir: true } };\n`,
      );
      const tiny: ViteBuild = {
        label: 'a tiny app',
        configFile: 'app/vite.config.mjs',
        outDir: 'app/dist',
        inputs: ['app/index.html', 'app/vite.config.mjs'],
        optional: ['app'],
      };
      const lines: string[] = [];
      const before = Date.now();
      expect(await ensureViteBuild(tiny, (line) => lines.push(line), project)).toBe(true);
      expect(lines).toEqual([
        expect.stringMatching(/^studyhall: built a tiny app into app\/dist in \d+ ms \(no build yet\)$/),
      ]);
      expect(await readFile(path.join(project, 'app', 'dist', 'index.html'), 'utf8')).toContain('<script');
      const { startedAt } = JSON.parse(await readFile(path.join(project, 'app', 'dist', STAMP_FILE), 'utf8'));
      expect(startedAt).toBeGreaterThanOrEqual(before);
      // Sources written before the build started (the walk skips dist, where the output went).
      const past = new Date(before - 60_000);
      for (const file of ['app/index.html', 'app/main.js', 'app/vite.config.mjs', 'app'])
        await utimes(path.join(project, file), past, past);
      expect(await ensureViteBuild(tiny, (line) => lines.push(line), project)).toBe(false);
      expect(lines).toHaveLength(1);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 60_000);
});

// The Vite builds `npm start`'s launcher keeps fresh (the web app, the phone remote): stale without
// a stamped build or once a source is newer than the build's start, fresh otherwise, whatever the
// tests, dotfiles or old output under the source folders do; no build lists a folder that holds its
// own output (making the output would make that folder newer: a rebuild on every second start); a
// real build on a tiny project stamps its output and is then left alone; and the phone remote, built
// for real, is fresh right after.
import { cp, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { STAMP_FILE, writeBuildStamp } from './freshness.mjs';
import {
  ensureViteBuild,
  hasSources,
  sourcesHoldingOutput,
  staleReason,
  VITE_BUILDS,
  type ViteBuild,
} from './vite-build.mjs';

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

  async function writeSources(mtimeSeconds: number) {
    await write('companion/ui/vite.config.ts', 'export default {};', mtimeSeconds);
    await write('companion/ui/index.html', '<html></html>', mtimeSeconds);
    await write('companion/ui/overlay.html', '<html></html>', mtimeSeconds);
    await write('companion/ui/src/main.tsx', 'render()', mtimeSeconds);
    await write('companion/core/actions.ts', 'export {}', mtimeSeconds);
    await ageFolders(['companion/ui/src', 'companion/core', 'companion/ui', 'companion'], mtimeSeconds);
  }

  it('is stale when its own sources or companion/core change, not for its dist or tests', async () => {
    await writeSources(1000);
    expect(await staleReason(companion, temp.dir)).toBe('no build yet');
    await stampBuild(companion, 2000);
    expect(await staleReason(companion, temp.dir)).toBeUndefined();
    await write('companion/core/actions.test.ts', 'test()', 3000);
    await ageFolders(['companion/core'], 1000);
    expect(await staleReason(companion, temp.dir)).toBeUndefined();
    await write('companion/core/actions.ts', 'export const a = 1;', 3000);
    expect(await staleReason(companion, temp.dir)).toBe('companion/core changed');
  });

  it('stays fresh when the build makes (or replaces) its dist inside companion/ui', async () => {
    await writeSources(1000);
    // The build starts, then makes companion/ui/dist: companion/ui gets a time after the start.
    await stampBuild(companion, 2000);
    await write('companion/ui/dist/index.html', 'built', 2001);
    await utimes(path.join(temp.dir, 'companion/ui'), 2001, 2001);
    expect(await staleReason(companion, temp.dir)).toBeUndefined();
  });

  it('is stale when one of its pages is deleted', async () => {
    await writeSources(1000);
    await stampBuild(companion, 2000);
    await rm(path.join(temp.dir, 'companion/ui/overlay.html'));
    expect(await staleReason(companion, temp.dir)).toBe('companion/ui/overlay.html changed');
  });
});

describe('every Vite build', () => {
  it.each(Object.entries(VITE_BUILDS))('%s lists no folder that holds its own output', (_name, build) => {
    expect(sourcesHoldingOutput(build)).toEqual([]);
  });

  it('would be caught listing one', () => {
    const holding: ViteBuild = { ...VITE_BUILDS.companion, optional: ['companion/ui', 'companion/ui/dist/'] };
    expect(sourcesHoldingOutput(holding)).toEqual(['companion/ui', 'companion/ui/dist/']);
  });

  it('lists every entry of companion/ui as a source of the phone remote, but dist and the icon drawings', async () => {
    const entries = await readdir(path.join(repoRoot, 'companion/ui'), { withFileTypes: true });
    const companion = VITE_BUILDS.companion;
    const sources = [...companion.inputs, ...companion.optional];
    for (const entry of entries) {
      // icons/ holds the drawings tools/icons renders into public/icons, which the build reads.
      if (entry.name === 'dist' || entry.name.startsWith('.') || entry.name === 'icons') continue;
      expect(sources, `companion/ui/${entry.name} is not a source of the build`).toContain(
        `companion/ui/${entry.name}`,
      );
    }
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
        optional: ['app/main.js'],
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
      // Sources written before the build started; app/, which now holds dist, is left as the build left it.
      const past = new Date(before - 60_000);
      for (const file of ['app/index.html', 'app/main.js', 'app/vite.config.mjs'])
        await utimes(path.join(project, file), past, past);
      expect(await ensureViteBuild(tiny, (line) => lines.push(line), project)).toBe(false);
      expect(lines).toHaveLength(1);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the phone remote, built for real', () => {
  it('is fresh right after a first build, so the next start does not build it again', async () => {
    // A copy of companion/ inside the checkout (.tmp is git-ignored), so its config resolves Vite
    // and the project's imports; its sources dated before the build, as a checkout's are.
    await mkdir(path.join(repoRoot, '.tmp'), { recursive: true });
    const root = path.join(repoRoot, '.tmp', `companion-build-${process.pid}`);
    try {
      for (const part of ['companion/ui', 'companion/core'])
        await cp(path.join(repoRoot, part), path.join(root, part), {
          recursive: true,
          filter: (source) => !source.includes(`${path.sep}dist`),
        });
      // Every copied file and folder dated a minute back: a copy made in the same second as the build
      // starts would otherwise count as changed after it (the stamp and mtimes compare by second).
      const past = new Date(Date.now() - 60_000);
      for (const entry of await readdir(root, { recursive: true })) await utimes(path.join(root, entry), past, past);
      await utimes(root, past, past);
      const lines: string[] = [];
      expect(await ensureViteBuild(VITE_BUILDS.companion, (line) => lines.push(line), root)).toBe(true);
      expect(lines).toEqual([expect.stringMatching(/\(no build yet\)$/)]);
      expect(await staleReason(VITE_BUILDS.companion, root)).toBeUndefined();
      expect(await ensureViteBuild(VITE_BUILDS.companion, (line) => lines.push(line), root)).toBe(false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});

// Build-on-start: web/dist is rebuilt when it is missing or older than a source of the app, and
// left alone otherwise; the service worker's precache list comes from Vite's build manifest.
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderServiceWorker } from '../src/routes/service-worker.ts';
import { ensureWebDist, hasWebSources, precacheFiles, webDistIsStale } from '../src/web-dist.ts';
import { makeTempDir } from './helpers.ts';

let temp: Awaited<ReturnType<typeof makeTempDir>>;

async function write(relative: string, content: string, mtimeSeconds: number) {
  const file = path.join(temp.dir, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  await utimes(file, mtimeSeconds, mtimeSeconds);
}

beforeEach(async () => {
  temp = await makeTempDir('webdist');
});
afterEach(() => temp.remove());

describe('web/dist freshness', () => {
  it('calls a checkout without web sources nothing to build, and leaves it alone', async () => {
    expect(await hasWebSources(temp.dir)).toBe(false);
    expect(await ensureWebDist(temp.dir)).toBe(false);
  });

  it('is stale when dist has no index.html', async () => {
    await write('web/index.html', '<html></html>', 1000);
    await write('web/vite.config.ts', 'export default {};', 1000);
    expect(await webDistIsStale(temp.dir)).toBe(true);
  });

  it('is fresh when the build is newer than every source, and stale once any source changes', async () => {
    await write('web/index.html', '<html></html>', 1000);
    await write('web/vite.config.ts', 'export default {};', 1000);
    await write('web/src/main.tsx', 'render()', 1000);
    await write('web/src/routes/focus/FocusPage.tsx', 'export default 1', 1000);
    await utimes(path.join(temp.dir, 'web/src/routes/focus'), 1000, 1000);
    await utimes(path.join(temp.dir, 'web/src/routes'), 1000, 1000);
    await utimes(path.join(temp.dir, 'web/src'), 1000, 1000);
    await write('web/dist/index.html', 'built', 2000);
    expect(await webDistIsStale(temp.dir)).toBe(false);
    await write('web/src/routes/focus/FocusPage.tsx', 'export default 2', 3000);
    expect(await webDistIsStale(temp.dir)).toBe(true);
  });

  it('is stale when a public file or the Vite config is newer than the build', async () => {
    await write('web/index.html', '<html></html>', 1000);
    await write('web/vite.config.ts', 'export default {};', 1000);
    await write('web/dist/index.html', 'built', 2000);
    expect(await webDistIsStale(temp.dir)).toBe(false);
    await write('web/public/icon.svg', '<svg/>', 3000);
    expect(await webDistIsStale(temp.dir)).toBe(true);
  });
});

describe('the precache list', () => {
  it('lists every hashed JS, CSS and asset file of the manifest once, without HTML', async () => {
    await write('web/dist/.vite/manifest.json', JSON.stringify({
      'index.html': { file: 'assets/index-a1.js', css: ['assets/index-b2.css'], isEntry: true, imports: ['_shared-c3.js'] },
      '_shared-c3.js': { file: 'assets/shared-c3.js' },
      'src/routes/stats/StatsPage.tsx': { file: 'assets/StatsPage-d4.js', css: ['assets/StatsPage-e5.css'], assets: ['assets/chart-f6.svg'], isDynamicEntry: true },
      'src/other.html': { file: 'other.html' },
    }), 1000);
    expect(await precacheFiles(path.join(temp.dir, 'web/dist'))).toEqual([
      '/assets/StatsPage-d4.js', '/assets/StatsPage-e5.css', '/assets/chart-f6.svg', '/assets/index-a1.js', '/assets/index-b2.css', '/assets/shared-c3.js',
    ]);
  });

  it('is empty without a build manifest, and the service worker gets an empty array literal', async () => {
    expect(await precacheFiles(path.join(temp.dir, 'web/dist'))).toEqual([]);
    const rendered = renderServiceWorker('const HASHED_FILES = __PRECACHE_FILES__;', { version: '1.0.0', git_sha: null, commit_message: null, pwa_cache: 'c' }, 'now', []);
    expect(rendered).toBe('const HASHED_FILES = [];');
  });

  it('is written into the service worker as a JSON array literal', () => {
    const rendered = renderServiceWorker("const CACHE = '__PWA_CACHE__'; const FILES = __PRECACHE_FILES__;", { version: '1.0.0', git_sha: 'abc', commit_message: null, pwa_cache: 'studyhall-v1.0.0-abc' }, 'now', ['/assets/a.js', '/assets/b.css']);
    expect(rendered).toBe('const CACHE = \'studyhall-v1.0.0-abc\'; const FILES = ["/assets/a.js","/assets/b.css"];');
  });
});

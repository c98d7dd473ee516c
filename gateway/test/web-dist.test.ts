// The service worker's precache list comes from Vite's build manifest of web/dist (whose freshness
// tools/build/vite-build.test.ts covers).
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderServiceWorker } from '../src/routes/service-worker.ts';
import { precacheFiles } from '../src/web-dist.ts';
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

describe('the precache list', () => {
  it('lists every hashed JS, CSS and asset file of the manifest once, without HTML', async () => {
    await write(
      'web/dist/.vite/manifest.json',
      JSON.stringify({
        'index.html': {
          file: 'assets/index-a1.js',
          css: ['assets/index-b2.css'],
          isEntry: true,
          imports: ['_shared-c3.js'],
        },
        '_shared-c3.js': { file: 'assets/shared-c3.js' },
        'src/routes/stats/StatsPage.tsx': {
          file: 'assets/StatsPage-d4.js',
          css: ['assets/StatsPage-e5.css'],
          assets: ['assets/chart-f6.svg'],
          isDynamicEntry: true,
        },
        'src/other.html': { file: 'other.html' },
      }),
      1000,
    );
    expect(await precacheFiles(path.join(temp.dir, 'web/dist'))).toEqual([
      '/assets/StatsPage-d4.js',
      '/assets/StatsPage-e5.css',
      '/assets/chart-f6.svg',
      '/assets/index-a1.js',
      '/assets/index-b2.css',
      '/assets/shared-c3.js',
    ]);
  });

  it('is empty without a build manifest, and the service worker gets an empty array literal', async () => {
    expect(await precacheFiles(path.join(temp.dir, 'web/dist'))).toEqual([]);
    const rendered = renderServiceWorker(
      'const HASHED_FILES = __PRECACHE_FILES__;',
      { version: '1.0.0', git_sha: null, commit_message: null, pwa_cache: 'c' },
      'now',
      [],
    );
    expect(rendered).toBe('const HASHED_FILES = [];');
  });

  it('is written into the service worker as a JSON array literal', () => {
    const rendered = renderServiceWorker(
      "const CACHE = '__PWA_CACHE__'; const FILES = __PRECACHE_FILES__;",
      { version: '1.0.0', git_sha: 'abc', commit_message: null, pwa_cache: 'studyhall-v1.0.0-abc' },
      'now',
      ['/assets/a.js', '/assets/b.css'],
    );
    expect(rendered).toBe('const CACHE = \'studyhall-v1.0.0-abc\'; const FILES = ["/assets/a.js","/assets/b.css"];');
  });
});

// Builds the companion's service worker as its own entry (sw.js, no hash, beside index.html) and
// writes into it the list of files to precache and a cache name derived from their contents, so a
// new build replaces the old cache and an unchanged one keeps it.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'vite';

export const SERVICE_WORKER_ENTRY = 'sw';
export const SERVICE_WORKER_FILE = 'sw.js';

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...(await listFiles(path.join(dir, entry.name), relative)));
    else files.push(relative);
  }
  return files;
}

/** Replaces the two build constants of the worker's code with the precache list and cache name. */
export function fillServiceWorker(code: string, cacheName: string, precache: string[]): string {
  return code
    .replaceAll('__COMPANION_CACHE__', JSON.stringify(cacheName))
    .replaceAll('__COMPANION_PRECACHE__', JSON.stringify(precache));
}

export function companionServiceWorker(publicDir: string): Plugin {
  return {
    name: 'studyhall-companion-service-worker',
    apply: 'build',
    // After Vite's HTML plugin has emitted index.html and overlay.html, so they are precached too.
    enforce: 'post',
    async generateBundle(_options, bundle) {
      const worker = Object.values(bundle).find(
        (item) => item.type === 'chunk' && item.fileName === SERVICE_WORKER_FILE,
      );
      if (!worker || worker.type !== 'chunk')
        this.error(`the service worker entry ${SERVICE_WORKER_FILE} is missing from the build`);
      const hash = createHash('sha256');
      const files: string[] = [];
      for (const item of Object.values(bundle)) {
        if (item.fileName === SERVICE_WORKER_FILE || item.fileName.endsWith('.map')) continue;
        files.push(item.fileName);
        hash.update(item.fileName).update(item.type === 'chunk' ? item.code : item.source);
      }
      for (const file of await listFiles(publicDir)) {
        files.push(file);
        hash.update(file).update(await readFile(path.join(publicDir, file)));
      }
      // The remote itself is "./" (the scope's index), which is what a start_url navigation asks for.
      const precache = ['./', ...files.sort().map((file) => `./${file}`)];
      worker.code = fillServiceWorker(worker.code, `studyhall-companion-${hash.digest('hex').slice(0, 16)}`, precache);
    },
  };
}

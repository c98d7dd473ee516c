// The built web app the gateway serves (web/dist, made by Vite from web/). The gateway never builds
// it: `npm start`'s launcher does when it is missing or stale (tools/build/vite-build.mjs), so a fresh
// clone or a pulled update serves the app that is checked out; `npm run build` builds it explicitly.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export interface WebPaths {
  /** Static files to serve (web/dist). */
  distDir: string;
  /** The service-worker template with build placeholders (web/sw.template.js). */
  swTemplate: string;
  /** Vite's build manifest inside distDir (lists every hashed file of the build). */
  buildManifest: string;
}

export function webPaths(repoDir: string): WebPaths {
  const distDir = path.join(repoDir, 'web', 'dist');
  return {
    distDir,
    swTemplate: path.join(repoDir, 'web', 'sw.template.js'),
    buildManifest: path.join(distDir, '.vite', 'manifest.json'),
  };
}

const manifestEntry = z
  .object({ file: z.string(), css: z.array(z.string()).optional(), assets: z.array(z.string()).optional() })
  .loose();
export const viteManifest = z.record(z.string(), manifestEntry);

/** Every hashed file of the build as a URL path (JS, CSS, assets), sorted; [] without a build. */
export async function precacheFiles(distDir: string): Promise<string[]> {
  let parsed;
  try {
    parsed = viteManifest.parse(JSON.parse(await readFile(path.join(distDir, '.vite', 'manifest.json'), 'utf8')));
  } catch {
    return [];
  }
  const files = new Set<string>();
  for (const entry of Object.values(parsed)) {
    for (const file of [entry.file, ...(entry.css ?? []), ...(entry.assets ?? [])]) {
      if (!file.endsWith('.html')) files.add(`/${file}`);
    }
  }
  return [...files].sort();
}

// The built web app the gateway serves (web/dist, made by Vite from web/). `npm start` builds it
// when it is missing or older than its sources, so a fresh clone or a pulled update serves the
// app that is checked out; `npm run build` does the same build explicitly.
import { spawn } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
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
  return { distDir, swTemplate: path.join(repoDir, 'web', 'sw.template.js'), buildManifest: path.join(distDir, '.vite', 'manifest.json') };
}

/** The files a build is made from: a change to any of them makes web/dist stale. */
const SOURCES = ['web/index.html', 'web/vite.config.ts', 'web/src', 'web/public'];

async function mtimeMs(file: string): Promise<number | undefined> {
  return stat(file).then((info) => info.mtimeMs, () => undefined);
}

/** The newest modification time under a file or folder (0 when it does not exist). */
async function newestMtime(entry: string): Promise<number> {
  let info;
  try {
    info = await stat(entry);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs; // a deleted file shows only as a newer folder
  for (const child of await readdir(entry)) newest = Math.max(newest, await newestMtime(path.join(entry, child)));
  return newest;
}

/** Whether this checkout has the web app's sources (a Vite project) to build from. */
export async function hasWebSources(repoDir: string): Promise<boolean> {
  return (await mtimeMs(path.join(repoDir, 'web', 'index.html'))) !== undefined && (await mtimeMs(path.join(repoDir, 'web', 'vite.config.ts'))) !== undefined;
}

/** True when web/dist has no index.html or any source is newer than it. */
export async function webDistIsStale(repoDir: string): Promise<boolean> {
  const built = await mtimeMs(path.join(webPaths(repoDir).distDir, 'index.html'));
  if (built === undefined) return true;
  for (const source of SOURCES) if ((await newestMtime(path.join(repoDir, source))) > built) return true;
  return false;
}

/** Runs Vite's production build of web/ into web/dist with this checkout's own Vite. */
export function buildWebDist(repoDir: string, outDir?: string): Promise<void> {
  const vite = path.join(repoDir, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'build', '--config', path.join(repoDir, 'web', 'vite.config.ts'), '--logLevel', 'warn'];
  if (outDir) args.push('--outDir', outDir, '--emptyOutDir');
  return new Promise((resolve, reject) => {
    // A production build whatever the caller's NODE_ENV (a test runner sets "test").
    const child = spawn(process.execPath, args, { cwd: repoDir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the web build failed (exit ${code}):\n${output.trim()}`))));
  });
}

/** Builds web/dist when it is missing or stale; returns whether it built. */
export async function ensureWebDist(repoDir: string, log: (line: string) => void = () => {}): Promise<boolean> {
  if (!(await hasWebSources(repoDir))) return false;
  if (!(await webDistIsStale(repoDir))) return false;
  log(`studyhall: building the web app into ${webPaths(repoDir).distDir}`);
  await buildWebDist(repoDir);
  return true;
}

const manifestEntry = z.object({ file: z.string(), css: z.array(z.string()).optional(), assets: z.array(z.string()).optional() }).loose();
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

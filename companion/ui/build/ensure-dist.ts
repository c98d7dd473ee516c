// Keeps companion/ui/dist in step with its sources: `npm start` calls this, and it rebuilds (Vite,
// a few seconds) only when the remote's sources changed since the last build, which it knows from a
// fingerprint of every source file written beside the build.
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const STAMP_FILE = '.source-fingerprint';

export function companionPaths(repoDir: string) {
  const uiDir = path.join(repoDir, 'companion', 'ui');
  return { uiDir, coreDir: path.join(repoDir, 'companion', 'core'), distDir: path.join(uiDir, 'dist'), configFile: path.join(uiDir, 'vite.config.ts') };
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name === 'dist' || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(full)));
    else if (!/\.test\.tsx?$/.test(entry.name)) files.push(full);
  }
  return files.sort();
}

/** A hash over the path and content of every file that goes into the build. */
export async function sourceFingerprint(repoDir: string): Promise<string> {
  const { uiDir, coreDir } = companionPaths(repoDir);
  const hash = createHash('sha256');
  for (const file of [...(await sourceFiles(uiDir)), ...(await sourceFiles(coreDir))]) {
    hash.update(path.relative(repoDir, file)).update('\0').update(await readFile(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Builds the remote when its build is missing or older than its sources; returns whether it built. */
export async function ensureCompanionDist(repoDir: string, log: (line: string) => void = () => {}): Promise<boolean> {
  const { distDir, configFile } = companionPaths(repoDir);
  const fingerprint = await sourceFingerprint(repoDir);
  const built = await readFile(path.join(distDir, STAMP_FILE), 'utf8').catch(() => undefined);
  if (built?.trim() === fingerprint) return false;
  log(`studyhall: building the phone remote into ${distDir}`);
  const { build } = await import('vite');
  await build({ configFile, logLevel: 'warn' });
  await writeFile(path.join(distDir, STAMP_FILE), `${fingerprint}\n`);
  return true;
}

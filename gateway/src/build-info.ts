// What /api/version and /sw.js report: the package version, the checked-out commit and the cache
// name the service worker uses. Read from the checkout on every call, so a finished self-update
// shows its new SHA without a restart of this process.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { readHead } from './update/git.ts';

export interface BuildInfo {
  version: string;
  git_sha: string | null;
  commit_message: string | null;
  /** The Cache Storage name the service worker uses; changes with every commit so clients refresh. */
  pwa_cache: string;
}

const packageJson = z.object({ version: z.string().min(1) });

export async function readPackageVersion(repoDir: string): Promise<string> {
  try {
    return packageJson.parse(JSON.parse(await readFile(path.join(repoDir, 'package.json'), 'utf8'))).version;
  } catch {
    return '0.0.0';
  }
}

export function pwaCacheName(version: string, sha: string | null): string {
  return `studyhall-v${version}-${sha ? sha.slice(0, 12) : 'dev'}`;
}

export async function readBuildInfo(repoDir: string): Promise<BuildInfo> {
  const [version, head] = await Promise.all([readPackageVersion(repoDir), readHead(repoDir)]);
  return {
    version,
    git_sha: head?.sha ?? null,
    commit_message: head?.message ?? null,
    pwa_cache: pwaCacheName(version, head?.sha ?? null),
  };
}

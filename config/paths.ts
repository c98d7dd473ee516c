// Where the checkout and DATA_DIR are, resolved from this file so every entry point agrees. It sits
// in config/ because the environment schema's default DATA_DIR needs it, and config/ reads nothing
// of the parts that read it (db/paths.ts builds the database's paths on top of it).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout: the nearest folder above `start` that holds package.json. Searching (rather than
 * going up a fixed number of folders) keeps it right when this module runs from the compiled
 * server in .build/server, which has no package.json of its own. */
function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json in any folder above ${start}`);
  }
}

export const repoRoot = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));

/** DATA_DIR: `.data/` in the repo unless configured (the README's configuration table). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.DATA_DIR ?? path.join(repoRoot, '.data'));
}

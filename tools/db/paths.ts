// Where the database sources live, resolved from this file so every entry point agrees.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const platformDir = path.join(repoRoot, 'supabase', 'platform');
export const migrationsDir = path.join(repoRoot, 'supabase', 'migrations');
export const bundlesDir = path.join(repoRoot, 'supabase', 'bundles');
/** The pgTAP suite, where `supabase test db` looks for it. */
export const supabaseTestsDir = path.join(repoRoot, 'supabase', 'tests');

/** DATA_DIR as DESIGN.md defines it: `.data/` in the repository unless configured. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.DATA_DIR ?? path.join(repoRoot, '.data'));
}

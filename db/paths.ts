// Where the database sources live, resolved from the checkout (config/paths.ts) so every entry
// point agrees.
import path from 'node:path';
import { defaultDataDir, repoRoot } from '#config/paths.ts';

export { defaultDataDir, repoRoot };
export const platformDir = path.join(repoRoot, 'supabase', 'platform');
export const migrationsDir = path.join(repoRoot, 'supabase', 'migrations');
export const bundlesDir = path.join(repoRoot, 'supabase', 'bundles');
/** The pgTAP suite, where `supabase test db` looks for it. */
export const supabaseTestsDir = path.join(repoRoot, 'supabase', 'tests');

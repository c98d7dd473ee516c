// The settings localbase takes from the Supabase CLI's supabase/config.toml, so that one file says
// how auth behaves under `supabase start` and under localbase alike. Only the keys localbase
// honours are read (the CLI checks the rest); a key left out means the CLI's default. Read once,
// when localbase starts: a value of the wrong type stops it with the key named.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';
import { z } from 'zod';
import { repoRoot } from '#db/paths.ts';

/** The checkout's config.toml, where the CLI reads it. */
export const SUPABASE_CONFIG_FILE = path.join(repoRoot, 'supabase', 'config.toml');

const configFile = z.object({
  auth: z
    .object({
      email: z
        .object({
          // GoTrue's MAILER_SECURE_EMAIL_CHANGE_ENABLED; the CLI's template and hosted projects default to true.
          double_confirm_changes: z.boolean({ message: 'must be true or false' }).default(true),
        })
        .prefault({}),
    })
    .prefault({}),
});

export interface SupabaseConfigSettings {
  /** `[auth.email] double_confirm_changes`: both the current and the new address confirm a change. */
  doubleConfirmEmailChanges: boolean;
}

export class SupabaseConfigError extends Error {}

/** The settings in `file`; a missing file means every default, as the CLI's `supabase init` template has them. */
export async function readSupabaseConfig(file = SUPABASE_CONFIG_FILE): Promise<SupabaseConfigSettings> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') text = '';
    else throw error;
  }
  let toml: unknown;
  try {
    toml = parse(text);
  } catch (error) {
    throw new SupabaseConfigError(`${file}: not valid TOML: ${(error as Error).message}`);
  }
  const parsed = configFile.safeParse(toml);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SupabaseConfigError(`${file}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is not valid'}`);
  }
  return { doubleConfirmEmailChanges: parsed.data.auth.email.double_confirm_changes };
}

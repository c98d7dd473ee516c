// What localbase reads from the Supabase CLI's config.toml: `[auth.email] double_confirm_changes`,
// the CLI's default (true) when the key, its table or the whole file is missing, the repository's
// own file asking both addresses, and a clear refusal of a value the CLI would not take either.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSupabaseConfig, SupabaseConfigError } from './supabase-config.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'localbase-config-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configWith(text: string): Promise<string> {
  const file = path.join(dir, 'config.toml');
  await writeFile(file, text);
  return file;
}

describe('readSupabaseConfig', () => {
  it('asks both addresses to confirm an e-mail change unless double_confirm_changes is false', async () => {
    expect(await readSupabaseConfig(await configWith('[auth.email]\ndouble_confirm_changes = false\n'))).toEqual({
      doubleConfirmEmailChanges: false,
    });
    expect(await readSupabaseConfig(await configWith('[auth.email]\ndouble_confirm_changes = true\n'))).toEqual({
      doubleConfirmEmailChanges: true,
    });
  });

  it("takes the CLI's default when the key, its table or the file is missing", async () => {
    for (const text of ['[auth.email]\nenable_signup = true\n', '[auth]\nenabled = true\n', 'project_id = "x"\n']) {
      expect(await readSupabaseConfig(await configWith(text))).toEqual({ doubleConfirmEmailChanges: true });
    }
    expect(await readSupabaseConfig(path.join(dir, 'absent.toml'))).toEqual({ doubleConfirmEmailChanges: true });
  });

  it("reads the repository's supabase/config.toml, which asks both addresses", async () => {
    expect(await readSupabaseConfig()).toEqual({ doubleConfirmEmailChanges: true });
  });

  it('refuses a value of another type, and a file that is not TOML, naming the file and the key', async () => {
    const quoted = await configWith('[auth.email]\ndouble_confirm_changes = "no"\n');
    await expect(readSupabaseConfig(quoted)).rejects.toThrow(SupabaseConfigError);
    await expect(readSupabaseConfig(quoted)).rejects.toThrow(
      `${quoted}: auth.email.double_confirm_changes must be true or false`,
    );
    const broken = await configWith('[auth.email\n');
    await expect(readSupabaseConfig(broken)).rejects.toThrow(`${broken}: not valid TOML`);
  });
});

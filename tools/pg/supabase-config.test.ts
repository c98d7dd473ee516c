// supabase/config.toml agrees with the repository it describes: the ports and token lifetime
// localbase copies from the CLI, the seed files it names, a storage limit no bucket exceeds, and a
// Data API that serves no internal schema. (That PostgreSQL 15 is what test:pg proves on is
// checked in supabase-test-db.pg.test.ts.)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { repoRoot } from '#db/paths.ts';
import { ACCESS_TOKEN_LIFETIME_SECONDS, DEFAULT_PORT as LOCALBASE_PORT } from '#localbase';
import { openParityDatabase } from '../testing/parity-database.ts';

const supabaseDir = path.join(repoRoot, 'supabase');

const configSchema = z.object({
  project_id: z.string().min(1),
  api: z.object({ port: z.number(), schemas: z.array(z.string()) }),
  db: z.object({ port: z.number(), major_version: z.number() }),
  db_seed: z.object({ enabled: z.boolean(), sql_paths: z.array(z.string()) }),
  storage: z.object({ file_size_limit: z.string() }),
  auth: z.object({ jwt_expiry: z.number(), site_url: z.string() }),
});

function readConfig(): z.infer<typeof configSchema> {
  const toml = parse(readFileSync(path.join(supabaseDir, 'config.toml'), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  return configSchema.parse({ ...toml, db_seed: toml.db?.seed });
}

/** The CLI reads sizes with docker's units.RAMInBytes: "50MiB", "50MB" and "50m" are all 50 * 2^20. */
function ramInBytes(text: string): number {
  const match = /^(\d+(?:\.\d+)?) ?([kmgtp])?i?b?$/i.exec(text.trim());
  if (!match) throw new Error(`not a size the Supabase CLI reads: ${text}`);
  const power = match[2] ? 'kmgtp'.indexOf(match[2].toLowerCase()) + 1 : 0;
  return Number(match[1]) * 1024 ** power;
}

describe('supabase/config.toml', () => {
  const config = readConfig();

  it("serves the API on localbase's port and the database on the CLI's usual one", () => {
    expect(config.project_id).toBe('studyhall');
    expect(config.api.port).toBe(LOCALBASE_PORT);
    expect(config.db.port).toBe(54322);
  });

  it('exposes public through the Data API and no internal schema', () => {
    expect(config.api.schemas).toContain('public');
    for (const internal of ['private', 'tests', 'extensions', 'auth', 'storage', 'studyhall_meta']) {
      expect(config.api.schemas).not.toContain(internal);
    }
  });

  it('issues tokens for as long as localbase does', () => {
    expect(config.auth.jwt_expiry).toBe(ACCESS_TOKEN_LIFETIME_SECONDS);
    expect(config.auth.site_url).toBe('http://127.0.0.1:3000');
  });

  it('names seed files that exist', () => {
    expect(config.db_seed.enabled).toBe(true);
    for (const seed of config.db_seed.sql_paths) {
      expect(existsSync(path.resolve(supabaseDir, seed)), `${seed} (relative to supabase/)`).toBe(true);
    }
  });

  it('reads sizes as the CLI does', () => {
    expect(ramInBytes('50MiB')).toBe(52_428_800);
    expect(ramInBytes('50MB')).toBe(52_428_800);
    expect(ramInBytes('2 KiB')).toBe(2048);
    expect(ramInBytes('512')).toBe(512);
    expect(() => ramInBytes('fifty')).toThrow();
  });

  it('lets through the largest upload any bucket the migrations create accepts', async () => {
    const database = await openParityDatabase();
    try {
      const { rows } = await database.pool.query<{ id: string; file_size_limit: string | null }>(
        'select id, file_size_limit::text from storage.buckets order by id',
      );
      expect(rows.length).toBeGreaterThan(0);
      const globalLimit = ramInBytes(config.storage.file_size_limit);
      for (const bucket of rows) {
        expect(bucket.file_size_limit, `${bucket.id} has a limit`).not.toBeNull();
        expect(Number(bucket.file_size_limit), bucket.id).toBeLessThanOrEqual(globalLimit);
      }
    } finally {
      await database.close();
    }
  }, 120_000);
});

// app-complete.sql is a fresh install: it must apply cleanly to an empty database that has only
// what the hosted platform provides, and produce the same schema the migrations do.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { applyPlatform } from '../db/migrate.ts';
import { bundlesDir } from '../db/paths.ts';
import { openPglite } from '../db/pglite.ts';

describe('app-complete.sql', () => {
  it('applies to an empty PGlite with the platform stand-in', async () => {
    const pglite = await openPglite('memory://');
    const pool = new pg.Pool(createPgConfig(pglite));
    try {
      const client = await pool.connect();
      await applyPlatform(client);
      await client.query(await readFile(path.join(bundlesDir, 'app-complete.sql'), 'utf8'));
      const { rows } = await client.query<{ count: number }>(
        `select count(*)::int as count from pg_tables where schemaname = 'public' and tablename in
           ('users', 'user_profiles', 'user_settings', 'user_roles', 'user_stats_summary',
            'daily_user_stats', 'study_sessions', 'user_tasks', 'user_backups')`,
      );
      expect(rows[0]?.count).toBe(9);
      const buckets = await client.query('select id from storage.buckets order by id');
      expect(buckets.rows.map((row) => row.id)).toEqual(['avatars', 'backups', 'group-icons', 'study-material']);
      client.release();
    } finally {
      await pool.end();
      await pglite.close();
    }
  }, 120_000);
});

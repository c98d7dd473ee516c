// app-complete.sql is a fresh install: it must apply cleanly to an empty database that has only
// what the hosted platform provides, and build the same catalog the migrations build, object for
// object (tables, columns, constraints, indexes, views, policies, functions, triggers, types,
// grants, publications, comments, the storage buckets: see catalog-snapshot.ts).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlatform, migrateDatabase } from '../migrate.ts';
import { bundlesDir } from '../paths.ts';
import { openPglite } from '../pglite.ts';
import { SNAPSHOT_SECTIONS, snapshotCatalog, type CatalogSnapshot } from './catalog-snapshot.ts';

interface Built {
  client: pg.PoolClient;
  close(): Promise<void>;
}

async function emptyDatabase(): Promise<Built> {
  const pglite = await openPglite('memory://');
  const pool = new pg.Pool(createPgConfig(pglite));
  const client = await pool.connect();
  return {
    client,
    close: async () => {
      client.release();
      await pool.end();
      await pglite.close();
    },
  };
}

// One change per kind of object the snapshot covers, each made on the bundle's database inside a
// transaction that is rolled back: the snapshot must see every one of them.
const PROBES: { section: keyof CatalogSnapshot; sql: string }[] = [
  { section: 'schemas', sql: 'create schema probe' },
  { section: 'roles', sql: 'create role probe_role' },
  { section: 'relations', sql: 'alter table public.user_tasks disable row level security' },
  { section: 'relations', sql: 'revoke select on public.user_tasks from authenticated' },
  { section: 'columns', sql: `alter table public.user_tasks alter column done set default true` },
  { section: 'constraints', sql: 'alter table public.user_tasks add constraint probe check (done is not null)' },
  { section: 'indexes', sql: 'create index probe_index on public.user_tasks (task_day)' },
  { section: 'views', sql: 'create view public.probe_view as select 1 as one' },
  { section: 'rules', sql: 'create rule probe_rule as on delete to public.user_tasks do instead nothing' },
  { section: 'policies', sql: 'create policy probe on public.user_tasks for select to anon using (false)' },
  { section: 'functions', sql: 'alter function public.app_bootstrap_user() security invoker' },
  {
    section: 'triggers',
    sql: `create function public.probe_trigger() returns trigger language plpgsql as 'begin return new; end';
                              create trigger probe before insert on public.user_tasks for each row execute function public.probe_trigger()`,
  },
  { section: 'types', sql: `create type public.probe as enum ('a')` },
  { section: 'sequences', sql: 'create sequence public.probe_sequence' },
  { section: 'publications', sql: 'create publication probe_publication' },
  { section: 'defaultPrivileges', sql: 'alter default privileges in schema public revoke all on tables from anon' },
  { section: 'comments', sql: `comment on table public.user_tasks is 'probe'` },
  { section: 'buckets', sql: `update storage.buckets set file_size_limit = 1 where id = 'avatars'` },
];

describe('app-complete.sql', () => {
  let fromMigrations: Built;
  let fromBundle: Built;
  let expected: CatalogSnapshot;
  let built: CatalogSnapshot;

  beforeAll(async () => {
    fromMigrations = await emptyDatabase();
    await migrateDatabase(fromMigrations.client);
    expected = await snapshotCatalog(fromMigrations.client);
    fromBundle = await emptyDatabase();
  }, 180_000);

  afterAll(async () => {
    await fromMigrations?.close();
    await fromBundle?.close();
  });

  it('applies to an empty PGlite with the platform stand-in', async () => {
    await applyPlatform(fromBundle.client);
    await fromBundle.client.query(await readFile(path.join(bundlesDir, 'app-complete.sql'), 'utf8'));
  }, 120_000);

  it('builds the catalog the migrations build, section by section', async () => {
    built = await snapshotCatalog(fromBundle.client);
    for (const section of SNAPSHOT_SECTIONS) {
      expect(built[section], `${section} differ between app-complete.sql and the migrations`).toEqual(
        expected[section],
      );
    }
  }, 120_000);

  it('compares a catalog that holds the whole app', () => {
    const tables = expected.relations.filter((line) => /^public\.\S+ kind r /.test(line));
    expect(tables.length).toBeGreaterThanOrEqual(20);
    expect(expected.policies.length).toBeGreaterThanOrEqual(30);
    expect(expected.functions.filter((line) => line.startsWith('public.community_')).length).toBeGreaterThanOrEqual(20);
    expect(expected.triggers.some((line) => line.startsWith('auth.users '))).toBe(true);
    expect(expected.buckets.map((line) => line.split(' ')[0])).toEqual([
      'avatars',
      'backups',
      'group-icons',
      'study-material',
    ]);
  });

  it.each(PROBES)(
    'notices a change in $section: $sql',
    async ({ section, sql }) => {
      const client = fromBundle.client;
      await client.query('begin');
      try {
        await client.query(sql);
        expect((await snapshotCatalog(client))[section]).not.toEqual(built[section]);
      } finally {
        await client.query('rollback');
      }
    },
    60_000,
  );

  it('is back where it was once the probes are rolled back', async () => {
    expect(await snapshotCatalog(fromBundle.client)).toEqual(built);
  });
});

// The two patch bundles on a live-like database: community-patch-v6.sql re-applied on top of a
// complete install changes nothing, and leaderboard-rls-fix.sql repairs a database whose stats
// read policies are missing. Bundles come from the builder, so the test covers the current sources.
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyPlatform } from '../migrate.ts';
import { openPglite } from '../pglite.ts';
import { buildBundles } from './build.ts';
import { snapshotCatalog } from './catalog-snapshot.ts';

let bundles: Map<string, string>;
const cleanups: (() => Promise<void>)[] = [];

function bundle(name: string): string {
  const sql = bundles.get(name);
  if (sql === undefined) throw new Error(`the builder produced no ${name}`);
  return sql;
}

async function openCompleteInstall(): Promise<pg.PoolClient> {
  const pglite = await openPglite('memory://');
  const pool = new pg.Pool(createPgConfig(pglite));
  const client = await pool.connect();
  cleanups.push(async () => {
    client.release();
    await pool.end();
    await pglite.close();
  });
  await applyPlatform(client);
  await client.query(bundle('app-complete.sql'));
  return client;
}

async function countVisibleSummaries(client: pg.PoolClient, viewer: string): Promise<number> {
  await client.query('begin');
  try {
    await client.query(`select set_config('request.jwt.claims', $1, true)`, [
      JSON.stringify({ sub: viewer, role: 'authenticated' }),
    ]);
    await client.query('set local role authenticated');
    const { rows } = await client.query<{ count: number }>(
      'select count(*)::int as count from public.user_stats_summary where user_id <> $1',
      [viewer],
    );
    return rows[0]?.count ?? 0;
  } finally {
    await client.query('rollback');
  }
}

beforeAll(async () => {
  bundles = await buildBundles();
});

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('community-patch-v6.sql', () => {
  it('applies twice on top of app-complete.sql and leaves the catalog unchanged', async () => {
    const client = await openCompleteInstall();
    const before = await snapshotCatalog(client);
    await client.query(bundle('community-patch-v6.sql'));
    await client.query(bundle('community-patch-v6.sql'));
    expect(await snapshotCatalog(client)).toEqual(before);
  }, 180_000);

  it('keeps existing community data when re-applied', async () => {
    const client = await openCompleteInstall();
    await client.query(`insert into auth.users (id, email) values
      ('20000000-0000-4000-8000-000000000001', 'a@test.local'),
      ('20000000-0000-4000-8000-000000000002', 'b@test.local')`);
    await client.query(`insert into public.community_friends (user_id, friend_id, status) values
      ('20000000-0000-4000-8000-000000000001', '20000000-0000-4000-8000-000000000002', 'accepted')`);
    await client.query(`update public.community_enrollments set consent = true`);
    await client.query(bundle('community-patch-v6.sql'));
    const friends = await client.query('select status from public.community_friends');
    const consents = await client.query('select consent from public.community_enrollments');
    expect(friends.rows).toEqual([{ status: 'accepted' }]);
    expect(consents.rows).toEqual([{ consent: true }, { consent: true }]);
  }, 180_000);
});

describe('community-patch-v6.sql on a project that has the old membership helpers', () => {
  // The helpers as every earlier patch shipped them: they answered about any user id.
  const LEAKY_HELPER = `
    create or replace function public._is_group_member(gid uuid, uid uuid) returns boolean
    language sql stable security definer set search_path = ''
    as $$ select exists (select 1 from public.group_members m where m.group_id = gid and m.user_id = uid) $$`;

  async function askAsStranger(
    client: pg.PoolClient,
    stranger: string,
    groupId: string,
    about: string,
  ): Promise<boolean> {
    await client.query('begin');
    try {
      await client.query(`select set_config('request.jwt.claims', $1, true)`, [
        JSON.stringify({ sub: stranger, role: 'authenticated' }),
      ]);
      await client.query('set local role authenticated');
      const { rows } = await client.query<{ answer: boolean }>('select public._is_group_member($1, $2) as answer', [
        groupId,
        about,
      ]);
      return rows[0]?.answer ?? false;
    } finally {
      await client.query('rollback');
    }
  }

  it("stops them answering a stranger about someone else's private group", async () => {
    const client = await openCompleteInstall();
    const [owner, stranger] = ['40000000-0000-4000-8000-000000000001', '40000000-0000-4000-8000-000000000002'];
    await client.query(
      `insert into auth.users (id, email) values ($1, 'owner@test.local'), ($2, 'stranger@test.local')`,
      [owner, stranger],
    );
    const { rows } = await client.query<{ id: string }>(
      `insert into public.groups (name, visibility, created_by) values ('Hidden', 'private', $1) returning id`,
      [owner],
    );
    const groupId = rows[0]?.id as string;
    await client.query(LEAKY_HELPER);
    expect(await askAsStranger(client, stranger, groupId, owner)).toBe(true);

    await client.query(bundle('community-patch-v6.sql'));
    expect(await askAsStranger(client, stranger, groupId, owner)).toBe(false);
    expect(await askAsStranger(client, owner, groupId, owner)).toBe(true);
  }, 180_000);
});

describe('community-patch-v6.sql on a project whose buckets have no limits', () => {
  it('sets the allowed types and size limits of the four buckets', async () => {
    const client = await openCompleteInstall();
    await client.query('update storage.buckets set allowed_mime_types = null, file_size_limit = null');
    await client.query(`delete from storage.buckets where id = 'group-icons'`);
    await client.query(bundle('community-patch-v6.sql'));
    const { rows } = await client.query(
      'select id, public, allowed_mime_types, file_size_limit from storage.buckets order by id',
    );
    const images = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
    expect(rows).toEqual([
      { id: 'avatars', public: true, allowed_mime_types: images, file_size_limit: '2097152' },
      { id: 'backups', public: false, allowed_mime_types: ['application/json'], file_size_limit: '52428800' },
      { id: 'group-icons', public: true, allowed_mime_types: images, file_size_limit: '2097152' },
      { id: 'study-material', public: false, allowed_mime_types: null, file_size_limit: '52428800' },
    ]);
  }, 180_000);
});

describe('leaderboard-rls-fix.sql', () => {
  it('puts the students who share back on the leaderboard of a database without the stats read policies', async () => {
    const client = await openCompleteInstall();
    await client.query(`insert into auth.users (id, email) values
      ('30000000-0000-4000-8000-000000000001', 'viewer@test.local'),
      ('30000000-0000-4000-8000-000000000002', 'ranked@test.local'),
      ('30000000-0000-4000-8000-000000000003', 'private@test.local')`);
    // ranked shares study time and question counts; private keeps the default switches.
    await client.query(`update public.community_enrollments set privacy = privacy || '{"shareQuestionCounts": true}'
      where user_id = '30000000-0000-4000-8000-000000000002'`);
    await client.query(`
      drop policy "authenticated read all summaries for leaderboards" on public.user_stats_summary;
      drop policy "authenticated read all daily stats for leaderboards" on public.daily_user_stats;`);
    const viewer = '30000000-0000-4000-8000-000000000001';
    expect(await countVisibleSummaries(client, viewer)).toBe(0);

    await client.query(bundle('leaderboard-rls-fix.sql'));
    expect(await countVisibleSummaries(client, viewer)).toBe(1);
    await client.query(bundle('leaderboard-rls-fix.sql'));
    expect(await countVisibleSummaries(client, viewer)).toBe(1);
  }, 180_000);

  it('applies twice on top of app-complete.sql and leaves the catalog unchanged', async () => {
    const client = await openCompleteInstall();
    const before = await snapshotCatalog(client);
    await client.query(bundle('leaderboard-rls-fix.sql'));
    await client.query(bundle('leaderboard-rls-fix.sql'));
    expect(await snapshotCatalog(client)).toEqual(before);
  }, 180_000);

  it('holds only the stats read policies and the helper they call', () => {
    const statements = bundle('leaderboard-rls-fix.sql').match(/^(create|drop|grant|alter|revoke)\b.*$/gim) ?? [];
    expect(statements.some((line) => /private\.leaderboard_visible_ids/.test(line))).toBe(true);
    expect(
      statements.every((line) => /user_stats_summary|daily_user_stats|private\.leaderboard_visible_ids\(\)/.test(line)),
    ).toBe(true);
  });
});

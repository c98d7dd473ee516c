// Benchmark: community_get_overview for a user with 200 buddies who each have a month of stats,
// and expire_stale_presence over 100k presence rows (nothing stale, and all stale), on PostgreSQL 15
// and on PGlite. Prints median and p95 in ms. Not a test: it never fails on a time.
//   node --import tsx tools/bench/community-overview.bench.ts [--calls 200] [--sweeps 5]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { startCluster } from '../pg/cluster.ts';
import { openTestDatabase } from '../testing/test-database.ts';

const options = z
  .object({ calls: z.coerce.number().int().min(10).max(10_000), sweeps: z.coerce.number().int().min(1).max(50) })
  .parse(
    parseArgs({ options: { calls: { type: 'string', default: '200' }, sweeps: { type: 'string', default: '5' } } })
      .values,
  );

const VIEWER = '00000000-0000-4000-8000-000000000000';
const BUDDIES = 200;
const PRESENCE_ROWS = 100_000;

// Set-based seeding. Replica mode skips triggers (the per-user bootstrap) and FK checks, so the
// satellite rows the benchmark needs are written in bulk here instead.
const SEED_SQL = `
set session_replication_role = replica;
insert into auth.users (id, email)
  select case when g = 0 then '${VIEWER}'::uuid else gen_random_uuid() end, 'bench' || g || '@test.local'
  from generate_series(0, ${PRESENCE_ROWS - 1}) g;
insert into public.users (id, username) select id, email from auth.users;
insert into public.user_profiles (user_id, handle) select id, 'h' || replace(left(id::text, 18), '-', '') from auth.users;
insert into public.user_settings (user_id, day_offset_hours) select id, 4 from auth.users;
insert into public.community_enrollments (user_id, privacy)
  select id, '{"stealthMode": false, "shareTasks": true, "shareSubjectBreakdown": true,
    "shareQuestionCounts": true, "shareExactTime": true, "shareCurrentSubject": true}' from auth.users;
create temporary table bench_buddies as
  select id from public.users where id <> '${VIEWER}' order by id limit ${BUDDIES};
insert into public.community_friends (user_id, friend_id, status, accepted_at)
  select '${VIEWER}', id, 'accepted', now() from bench_buddies;
insert into public.daily_user_stats (user_id, study_day, minutes, sessions, correct)
  select b.id, current_date - d, 90, 3, 20 from bench_buddies b, generate_series(0, 29) d;
insert into public.study_sessions (user_id, subject_name, minutes, correct, started_at, ended_at, study_day)
  select b.id, 'Subject ' || s, 30, 5, now() - make_interval(days => d), now() - make_interval(days => d),
         current_date - d
  from bench_buddies b, generate_series(0, 29) d, generate_series(1, 3) s;
insert into public.user_tasks (user_id, title, subject_name, task_day)
  select b.id, 'Task ' || t, 'Subject 1', current_date - d from bench_buddies b, generate_series(0, 29) d,
    generate_series(1, 3) t;
insert into public.user_presence (user_id, status, last_seen)
  select id, case when random() < 0.5 then 'offline' else 'studying' end, now() from auth.users;
set session_replication_role = origin;
analyze;
`;

interface Stats {
  median: number;
  p95: number;
}

function summarise(latencies: number[]): Stats {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (fraction: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
  return { median: at(0.5), p95: at(0.95) };
}

async function timeOnce(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

async function benchmark(label: string, client: pg.PoolClient): Promise<void> {
  const seedStart = performance.now();
  await client.query(SEED_SQL);
  console.log(`${label}: seeded ${PRESENCE_ROWS} users in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  await client.query(`select set_config('request.jwt.claims', $1, false)`, [
    JSON.stringify({ sub: VIEWER, role: 'authenticated' }),
  ]);
  await client.query('set role authenticated');
  const check = await client.query<{ n: number }>('select jsonb_array_length(public.community_get_overview()) as n');
  if (check.rows[0]?.n !== BUDDIES)
    throw new Error(`overview returned ${check.rows[0]?.n} entries, expected ${BUDDIES}`);
  const overview: number[] = [];
  for (let i = 0; i < 10; i++) await client.query('select public.community_get_overview()');
  for (let i = 0; i < options.calls; i++)
    overview.push(await timeOnce(() => client.query('select public.community_get_overview()')));
  await client.query('reset role');

  const idle: number[] = [];
  await client.query('select public.expire_stale_presence()');
  for (let i = 0; i < options.calls; i++)
    idle.push(await timeOnce(() => client.query('select public.expire_stale_presence()')));

  const stale: number[] = [];
  for (let i = 0; i < options.sweeps; i++) {
    await client.query(`update public.user_presence set status = 'studying', last_seen = now() - interval '5 minutes'`);
    stale.push(await timeOnce(() => client.query('select public.expire_stale_presence()')));
  }

  const line = (name: string, stats: Stats, n: number): string =>
    `${label} ${name.padEnd(46)} median ${stats.median.toFixed(2).padStart(8)} ms   p95 ${stats.p95.toFixed(2).padStart(8)} ms   (n=${n})`;
  console.log(line('community_get_overview, 200 buddies x 30 days', summarise(overview), overview.length));
  console.log(line('expire_stale_presence, 100k rows, none stale', summarise(idle), idle.length));
  console.log(line('expire_stale_presence, 100k rows, all stale', summarise(stale), stale.length));
}

async function onPostgres15(): Promise<void> {
  const cluster = await startCluster();
  const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
  try {
    const client = await pool.connect();
    await benchmark('pg15  ', client);
    client.release();
  } finally {
    await pool.end();
    await cluster.stop();
  }
}

async function onPglite(): Promise<void> {
  const database = await openTestDatabase();
  try {
    const client = await database.pool.connect();
    await benchmark('pglite', client);
    client.release();
  } finally {
    await database.close();
  }
}

await onPostgres15();
await onPglite();

// Benchmark: record_study_session for a student who already has 5,000 sessions (each with a client
// id), with the plausible session rules (20261125130000_security_study_session_rules.sql) on and
// off, without and with a client id, and a retry of a stored client id, side by side in one run, on
// PostgreSQL 15 and on PGlite. Prints median and p95 in ms. Not a test: it never fails on a time.
//   node --import tsx tools/bench/record-session.bench.ts [--calls 300] [--rounds 2]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { startCluster } from '../pg/cluster.ts';
import { openTestDatabase } from '../testing/test-database.ts';

const options = z
  .object({ calls: z.coerce.number().int().min(10).max(10_000), rounds: z.coerce.number().int().min(1).max(10) })
  .parse(
    parseArgs({ options: { calls: { type: 'string', default: '300' }, rounds: { type: 'string', default: '2' } } })
      .values,
  );

const STUDENT = '00000000-0000-4000-8000-000000000001';
const SESSIONS = 5_000;
// The client id of the newest seeded session: a retry of it is answered from the unique index.
const STORED_CLIENT_ID = '00000000-0000-4000-8000-0000000000c1';

// One 30-minute session at the start of every hour, going back from a day ago. Replica mode skips
// the triggers (the rules too, so seeding does not measure them) and the foreign key checks.
const SEED_SQL = `
set session_replication_role = replica;
insert into auth.users (id, email) values ('${STUDENT}', 'bench-sessions@test.local');
insert into public.users (id, username) values ('${STUDENT}', 'bench-sessions@test.local');
insert into public.user_settings (user_id) values ('${STUDENT}');
insert into public.user_stats_summary (user_id, total_minutes, total_sessions) values ('${STUDENT}', ${SESSIONS * 30}, ${SESSIONS});
insert into public.study_sessions (user_id, client_id, subject_name, minutes, correct, started_at, ended_at, study_day)
  select '${STUDENT}', case when g = 0 then '${STORED_CLIENT_ID}'::uuid else gen_random_uuid() end, 'Subject ' || (g % 7), 30, 5,
         date_trunc('hour', now()) - interval '1 day' - make_interval(hours => g),
         date_trunc('hour', now()) - interval '1 day' - make_interval(hours => g) + interval '30 minutes',
         (date_trunc('hour', now()) - interval '1 day' - make_interval(hours => g))::date
  from generate_series(0, ${SESSIONS - 1}) g;
set session_replication_role = origin;
analyze;
`;

// The common case: a session that just ended, after every stored one.
const APPENDED = `select public.record_study_session(now() - interval '10 minutes', 5, 's1', 'Maths', null, null, 8, 2, 0)`;
// The same with a client id, a new one each call (what the app sends since idempotent writes).
const APPENDED_WITH_CLIENT_ID = `select public.record_study_session(now() - interval '10 minutes', 5, 's1', 'Maths', null, null, 8, 2, 0, gen_random_uuid())`;
// A retry of a session already stored (a lost answer): found by its client id, nothing written.
const RETRY = `select public.record_study_session(now() - interval '10 minutes', 5, 's1', 'Maths', null, null, 8, 2, 0, '${STORED_CLIENT_ID}')`;
// The console voids the newest session: the student's day and whole summary are recomputed from
// her 4,999 other sessions.
const VOID = `select public.void_study_session((select id from public.study_sessions where client_id = '${STORED_CLIENT_ID}'), 'bench', 'bench')`;
// A session settled late, in a gap half-way back in the history: before the overlap probe, the
// check read every session that ends after it starts (about 2,500 here); now one index entry.
const LATE = `select public.record_study_session(date_trunc('hour', now()) - interval '1 day' - interval '${SESSIONS / 2} hours' + interval '40 minutes', 10, 's1', 'Maths')`;

// The rules' trigger and the index its overlap probe reads (20261126600000_security_study_session_overlap_probe.sql).
const RULES_OFF = `alter table public.study_sessions disable trigger trg_enforce_study_session_rules;
drop index if exists public.study_sessions_user_counted_start_idx;`;
const RULES_ON = `alter table public.study_sessions enable trigger trg_enforce_study_session_rules;
create index if not exists study_sessions_user_counted_start_idx on public.study_sessions (user_id, started_at desc)
  where voided_at is null and ended_at - started_at > interval '30 seconds';
analyze public.study_sessions;`;

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

/** One call as the student (or the console), in a transaction rolled back after, so every call meets the same 5,000 rows. */
async function timeCall(client: pg.PoolClient, sql: string, role = 'authenticated'): Promise<number> {
  await client.query('begin');
  await client.query(`select set_config('request.jwt.claims', $1, true), set_config('role', $2, true)`, [
    JSON.stringify(role === 'authenticated' ? { sub: STUDENT, role } : { role }),
    role,
  ]);
  const start = performance.now();
  await client.query(sql);
  const elapsed = performance.now() - start;
  await client.query('rollback');
  return elapsed;
}

async function benchmark(label: string, client: pg.PoolClient): Promise<void> {
  await client.query(SEED_SQL);
  const samples: Record<string, number[]> = {};
  // Rounds alternate off and on, so drift on a shared machine falls on both sides alike.
  for (let round = 0; round < options.rounds; round++) {
    for (const rules of ['off', 'on'] as const) {
      await client.query(rules === 'off' ? RULES_OFF : RULES_ON);
      for (const [name, sql] of [
        ['appended', APPENDED],
        ['appended+client id', APPENDED_WITH_CLIENT_ID],
        ['retry', RETRY],
        ['late', LATE],
      ] as const) {
        const key = `${name}, rules ${rules}`;
        for (let i = 0; i < 10; i++) await timeCall(client, sql);
        for (let i = 0; i < options.calls; i++) (samples[key] ??= []).push(await timeCall(client, sql));
      }
    }
  }
  for (let i = 0; i < 10; i++) await timeCall(client, VOID, 'service_role');
  const voids: number[] = [];
  for (let i = 0; i < options.calls; i++) voids.push(await timeCall(client, VOID, 'service_role'));
  const count = await client.query<{ n: number }>(`select count(*)::int as n from public.study_sessions`);
  if (count.rows[0]?.n !== SESSIONS)
    throw new Error(`the calls left ${count.rows[0]?.n} sessions, expected ${SESSIONS}`);
  for (const [key, latencies] of Object.entries(samples)) {
    const stats = summarise(latencies);
    console.log(
      `${label} record_study_session, ${SESSIONS} sessions, ${key.padEnd(28)} median ${stats.median.toFixed(2).padStart(6)} ms   p95 ${stats.p95.toFixed(2).padStart(6)} ms   (n=${latencies.length})`,
    );
  }
  const voidStats = summarise(voids);
  console.log(
    `${label} void_study_session,   ${SESSIONS} sessions, ${'recompute, rules on'.padEnd(28)} median ${voidStats.median.toFixed(2).padStart(6)} ms   p95 ${voidStats.p95.toFixed(2).padStart(6)} ms   (n=${voids.length})`,
  );
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

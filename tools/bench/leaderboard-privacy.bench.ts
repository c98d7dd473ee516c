// Benchmark: what the leaderboard privacy rule costs the reads behind /__leaderboard, on PostgreSQL
// 15 with 5k students and 30 study days each (150k daily rows), a third of them sharing time and
// question counts, one in ten in stealth mode. Each read runs as an authenticated student (role +
// request.jwt.claims inside a transaction, as the Data API sets them) under the privacy policies,
// then under the old `using (true)` policies (swapped in and back within the same run), and as
// service_role, side by side. Not a test: it never fails on a time.
//   node --import tsx tools/bench/leaderboard-privacy.bench.ts [--runs 200]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { startCluster } from '../pg/cluster.ts';

const options = z
  .object({ runs: z.coerce.number().int().min(20).max(10_000) })
  .parse(parseArgs({ options: { runs: { type: 'string', default: '200' } } }).values);

const STUDENTS = 5000;
const DAYS = 30;

// Set-based seed: sign-up's trigger creates every satellite row; stats are written directly.
const SEED_SQL = `
  insert into auth.users (id, aud, role, email, encrypted_password, created_at, updated_at)
  select ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'authenticated', 'authenticated',
         'student' || i || '@bench.local', '', now(), now()
  from generate_series(1, ${STUDENTS}) i;
  update public.community_enrollments e set privacy = privacy
    || jsonb_build_object('shareQuestionCounts', n % 3 = 0, 'stealthMode', n % 10 = 0)
  from (select id, row_number() over (order by id) as n from public.users) u where u.id = e.user_id;
  insert into public.daily_user_stats (user_id, study_day, minutes, sessions, correct)
  select u.id, current_date - d, 10 + (u.n * 7 + d) % 200, 1, (u.n + d) % 30
  from (select id, row_number() over (order by id) as n from public.users) u cross join generate_series(0, ${DAYS - 1}) d;
  update public.user_stats_summary s set total_minutes = t.m, total_correct = t.c
  from (select user_id, sum(minutes) as m, sum(correct) as c from public.daily_user_stats group by user_id) t
  where t.user_id = s.user_id;
  analyze;
`;

const POLICIES = [
  ['authenticated read all summaries for leaderboards', 'user_stats_summary'],
  ['authenticated read all daily stats for leaderboards', 'daily_user_stats'],
] as const;

function alterPolicies(using: string): string {
  return POLICIES.map(([name, table]) => `alter policy "${name}" on public.${table} using (${using});`).join('\n');
}

interface Figures {
  median: number;
  p95: number;
  rows: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Times `sql` inside a transaction acting as `role` with the student's claims; ms per statement. */
async function timeQuery(
  client: pg.PoolClient,
  role: string,
  userId: string,
  sql: string,
  params: unknown[],
): Promise<Figures> {
  const latencies: number[] = [];
  let rows = 0;
  for (let run = 0; run < options.runs + 20; run++) {
    await client.query('begin');
    await client.query(`select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`, [
      role,
      JSON.stringify({ sub: userId, role }),
    ]);
    const started = performance.now();
    const result = await client.query(sql, params);
    const elapsed = performance.now() - started;
    await client.query('rollback');
    rows = result.rowCount ?? 0;
    if (run >= 20) latencies.push(elapsed); // the first 20 warm caches and plans
  }
  latencies.sort((a, b) => a - b);
  return { median: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), rows };
}

const cluster = await startCluster();
const pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
try {
  const seedStarted = performance.now();
  await pool.query(SEED_SQL);
  console.log(
    `seeded ${STUDENTS} students x ${DAYS} days in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s, ` +
      `load average ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}`,
  );
  const client = await pool.connect();
  try {
    const reader = '00000000-0000-4000-8000-000000000001';
    const { rows } = await client.query<{ policy: string }>(
      `select qual as policy from pg_policies where policyname = $1`,
      [POLICIES[0][0]],
    );
    const privacyUsing = z.string().parse(rows[0]?.policy);
    // The reads /__leaderboard makes: a month of daily rows, and every summary for "all".
    const queries: [string, string, unknown[]][] = [
      [
        'month: daily_user_stats since the 1st',
        'select user_id, minutes, correct from public.daily_user_stats where study_day >= $1',
        [new Date(Date.now() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10)],
      ],
      ['all: user_stats_summary', 'select user_id, total_minutes, total_correct from public.user_stats_summary', []],
      // The same month counted in the database: the policy's cost per row, without sending the rows.
      [
        'month counted: count(*) of daily_user_stats',
        'select count(*) from public.daily_user_stats where study_day >= $1',
        [new Date(Date.now() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10)],
      ],
    ];
    for (const [label, sql, params] of queries) {
      const privacy = await timeQuery(client, 'authenticated', reader, sql, params);
      await client.query(alterPolicies('true'));
      const open = await timeQuery(client, 'authenticated', reader, sql, params);
      await client.query(alterPolicies(privacyUsing));
      const service = await timeQuery(client, 'service_role', reader, sql, params);
      const figure = (name: string, value: Figures) =>
        `${name} ${value.median.toFixed(2)} / ${value.p95.toFixed(2)} ms (${value.rows} rows)`;
      console.log(
        `${label}: median / p95: ${figure('privacy policy', privacy)}; ${figure('using (true)', open)}; ` +
          `${figure('service_role', service)}; privacy / open ${(privacy.median / open.median).toFixed(2)}x, ` +
          `privacy / service_role ${(privacy.median / service.median).toFixed(2)}x`,
      );
    }
  } finally {
    client.release();
  }
} finally {
  await pool.end();
  await cluster.stop();
}

// Benchmark: community discovery and chat history on PostgreSQL 15 with 10k groups (30% private),
// 100k memberships (5k students in 20 groups each) and 1M chat messages. Each query runs as an
// authenticated member (role + request.jwt.claims inside a transaction, as the Data API does) and
// as service_role, for the RLS overhead ratio. Not a test: it never fails on a time.
//   node --import tsx tools/bench/community-groups.bench.ts [--runs 300]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { startCluster } from '../pg/cluster.ts';

const options = z
  .object({ runs: z.coerce.number().int().min(20).max(10_000) })
  .parse(parseArgs({ options: { runs: { type: 'string', default: '300' } } }).values);

// Set-based seed. Triggers are off during the seed (session_replication_role = replica) so the
// 100k memberships do not each update their group; member_count is set once at the end.
const SEED_SQL = `
  insert into auth.users (id, aud, role, email, encrypted_password, created_at, updated_at)
  select ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'authenticated', 'authenticated',
         'student' || i || '@bench.local', '', now(), now()
  from generate_series(1, 5000) i;
  set session_replication_role = replica;
  insert into public.groups (id, slug, name, visibility, is_public, join_policy, created_by)
  select ('00000000-0000-4000-9000-' || lpad(to_hex(i), 12, '0'))::uuid, 'study-group-' || i,
         'Study group ' || i || case when i % 7 = 0 then ' anatomy' else ' physics' end,
         case when i % 10 < 3 then 'private' else 'public' end, i % 10 >= 3, 'open',
         ('00000000-0000-4000-8000-' || lpad(to_hex(1 + i % 5000), 12, '0'))::uuid
  from generate_series(1, 10000) i;
  insert into public.group_members (group_id, user_id, role)
  select ('00000000-0000-4000-9000-' || lpad(to_hex(1 + (u * 37 + k * 503) % 10000), 12, '0'))::uuid,
         ('00000000-0000-4000-8000-' || lpad(to_hex(u), 12, '0'))::uuid, 'member'
  from generate_series(1, 5000) u cross join generate_series(1, 20) k
  on conflict do nothing;
  insert into public.group_chat_messages (group_id, sender_id, content, created_at)
  select ('00000000-0000-4000-9000-' || lpad(to_hex(1 + i % 10000), 12, '0'))::uuid,
         ('00000000-0000-4000-8000-' || lpad(to_hex(1 + i % 5000), 12, '0'))::uuid,
         'message ' || i, now() - make_interval(secs => i)
  from generate_series(1, 1000000) i;
  set session_replication_role = origin;
  update public.groups g set member_count = c.n
  from (select group_id, count(*)::int as n from public.group_members group by group_id) c where c.group_id = g.id;
  analyze;
`;

interface Figures {
  median: number;
  p95: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Times `sql` inside a transaction acting as `role` with the member's claims; ms per statement. */
async function timeQuery(
  client: pg.PoolClient,
  role: string,
  userId: string,
  sql: string,
  params: unknown[],
): Promise<Figures> {
  const latencies: number[] = [];
  for (let run = 0; run < options.runs + 20; run++) {
    await client.query('begin');
    await client.query(`select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`, [
      role,
      JSON.stringify({ sub: userId, role }),
    ]);
    const started = performance.now();
    await client.query(sql, params);
    const elapsed = performance.now() - started;
    await client.query('rollback');
    if (run >= 20) latencies.push(elapsed); // the first 20 warm caches and plans
  }
  latencies.sort((a, b) => a - b);
  return { median: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) };
}

const cluster = await startCluster();
const pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
try {
  const seedStarted = performance.now();
  await pool.query(SEED_SQL);
  console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
  const client = await pool.connect();
  try {
    const member = '00000000-0000-4000-8000-000000000001';
    const { rows } = await client.query<{ group_id: string }>(
      `select group_id from public.group_members where user_id = $1 limit 1`,
      [member],
    );
    const groupId = z.string().uuid().parse(rows[0]?.group_id);
    const queries: [string, string, unknown[]][] = [
      ['discovery, search "anatomy"', `select * from public.community_discover_groups('anatomy', 20, 0)`, []],
      // A term only one group matches: the ordered walk finds no early stop; the trigram indexes' case.
      [
        'discovery, search "group 9999 anatomy"',
        `select * from public.community_discover_groups('group 9999 anatomy', 20, 0)`,
        [],
      ],
      ['messages via RPC, newest 50', `select * from public.community_get_group_messages($1, 50)`, [groupId]],
      [
        'messages via table + RLS, newest 50',
        `select * from public.group_chat_messages where group_id = $1 order by created_at desc, id desc limit 50`,
        [groupId],
      ],
    ];
    for (const [label, sql, params] of queries) {
      const asMember = await timeQuery(client, 'authenticated', member, sql, params);
      const asService = await timeQuery(client, 'service_role', member, sql, params);
      console.log(
        `${label}: member median ${asMember.median.toFixed(2)} ms, p95 ${asMember.p95.toFixed(2)} ms; ` +
          `service_role median ${asService.median.toFixed(2)} ms, p95 ${asService.p95.toFixed(2)} ms; ` +
          `RLS overhead ${(asMember.median / asService.median).toFixed(2)}x`,
      );
    }
  } finally {
    client.release();
  }
} finally {
  await pool.end();
  await cluster.stop();
}

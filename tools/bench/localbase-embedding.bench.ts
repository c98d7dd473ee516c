// Benchmark: resource embedding through supabase-js against localbase on PostgreSQL 15, beside the
// same data read by a hand-written SQL join with `pg` (the floor), in one run:
//   A. a page of 50 groups, each with its members embedded (groups -> group_members);
//   B. 50 chat messages of a group, each with its sender's handle (a to-one spread through
//      users into user_profiles).
// Each is measured twice: as service_role (no RLS on either side: the floor is the join run by
// the database owner) and as a signed-in student who belongs to every group (RLS on both sides:
// the floor runs the join in a transaction under the student's role and claims, begin + setup +
// query + commit pipelined in one round trip, as localbase sends them). Every pair is checked to
// answer the same rows before it is timed; the two are timed call by call in alternation, so
// both meet the same load. Prints p50, p99, calls per second, p50 added, and the CPU time this
// process spent per call (client and, for localbase, server), which a loaded machine does not
// inflate the way it inflates latency.
// Not a test: it never fails on a time.
//   node --import tsx tools/bench/localbase-embedding.bench.ts [--calls 2000]
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import ws from 'ws';
import { z } from 'zod';
import { openDatabase } from '#db/database.ts';
import { startLocalbase } from '#localbase';
import { startCluster } from '../pg/cluster.ts';

const options = z
  .object({ calls: z.coerce.number().int().min(10).max(100_000) })
  .parse(parseArgs({ options: { calls: { type: 'string', default: '2000' } } }).values);

const GROUPS = 50;
const MEMBERS_PER_GROUP = 12;
const STUDENTS = 400;
const MESSAGES = 50;

interface Stats {
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU time this process (client, and for localbase also the server) spent per call, in ms. */
  cpuPerCall: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/**
 * Times `floor` and `subject` call by call in alternation, after a warm-up, so both meet the same
 * load on a shared machine; latencies in ms.
 */
async function measurePair(
  floor: () => Promise<unknown>,
  subject: () => Promise<unknown>,
  calls: number,
): Promise<[Stats, Stats]> {
  for (let i = 0; i < Math.min(200, calls); i++) {
    await floor();
    await subject();
  }
  const times: [number[], number[]] = [[], []];
  const elapsed = [0, 0];
  const cpu = [0, 0];
  for (let i = 0; i < calls; i++) {
    for (const [index, call] of [floor, subject].entries()) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await call();
      const took = performance.now() - t0;
      const used = process.cpuUsage(c0);
      times[index]?.push(took);
      elapsed[index] = (elapsed[index] ?? 0) + took;
      cpu[index] = (cpu[index] ?? 0) + (used.user + used.system) / 1000;
    }
  }
  return times.map((latencies, index) => {
    latencies.sort((a, b) => a - b);
    return {
      perSecond: (calls * 1000) / (elapsed[index] ?? 1),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      cpuPerCall: (cpu[index] ?? 0) / calls,
    };
  }) as [Stats, Stats];
}

/** Seeds students (through auth.users, so the app's triggers make their rows), groups, members, chat. */
async function seed(pool: pg.Pool, readerId: string): Promise<string> {
  await pool.query(`
    insert into auth.users (id, aud, role, email, email_confirmed_at, created_at, updated_at, raw_app_meta_data, raw_user_meta_data, is_anonymous)
    select gen_random_uuid(), 'authenticated', 'authenticated', 'bench-student-' || g || '@example.com', now(), now(), now(),
           '{"provider":"email","providers":["email"]}', '{}', false
    from generate_series(1, ${STUDENTS}) g`);
  await pool.query(`
    update public.user_profiles p set handle = 'student_' || substr(p.user_id::text, 1, 8)
    where p.user_id in (select id from public.users)`);
  await pool.query(
    `
    with students as (select id, row_number() over (order by id) as n from public.users where id <> $1)
    insert into public.groups (name, visibility, join_policy, created_by)
    select 'Bench group ' || lpad(g::text, 3, '0'), 'public', 'open', (select id from students where n = g)
    from generate_series(1, ${GROUPS}) g`,
    [readerId],
  );
  await pool.query(
    `
    with students as (select id, row_number() over (order by id) as n from public.users where id <> $1),
         bench as (select id, row_number() over (order by name) as n from public.groups where name like 'Bench group %')
    insert into public.group_members (group_id, user_id, role)
    select b.id, s.id, 'member'
    from bench b join students s on s.n between (b.n * 7) % ${STUDENTS - MEMBERS_PER_GROUP} + 1 and (b.n * 7) % ${STUDENTS - MEMBERS_PER_GROUP} + ${MEMBERS_PER_GROUP - 1}
    on conflict do nothing`,
    [readerId],
  );
  await pool.query(
    `
    insert into public.group_members (group_id, user_id, role)
    select id, $1, 'member' from public.groups where name like 'Bench group %' on conflict do nothing`,
    [readerId],
  );
  const first = await pool.query<{ id: string }>(`select id from public.groups where name = 'Bench group 001'`);
  const groupId = first.rows[0]?.id as string;
  await pool.query(
    `
    with members as (select user_id, row_number() over (order by user_id) as n from public.group_members where group_id = $1)
    insert into public.group_chat_messages (group_id, sender_id, content, created_at)
    select $1, (select user_id from members where n = 1 + g % (select count(*) from members)), 'message ' || g,
           now() - make_interval(secs => ${MESSAGES * 2} - g)
    from generate_series(1, ${MESSAGES * 2}) g`,
    [groupId],
  );
  await pool.query('analyze');
  return groupId;
}

const GROUPS_SELECT = 'id,name,member_count,group_members(user_id,role,joined_at)';
const GROUPS_SQL = `
  select coalesce(json_agg(t), '[]')::text as body from (
    select g.id, g.name, g.member_count,
           coalesce((select json_agg(json_build_object('user_id', m.user_id, 'role', m.role, 'joined_at', m.joined_at))
                     from public.group_members m where m.group_id = g.id), '[]') as group_members
    from public.groups g
    order by g.name
    limit 50
  ) t`;

const MESSAGES_SELECT = 'id,content,created_at,...users(...user_profiles(handle))';
const MESSAGES_SQL = `
  select coalesce(json_agg(t), '[]')::text as body from (
    select m.id, m.content, m.created_at, p.handle
    from public.group_chat_messages m
    left join public.users u on u.id = m.sender_id
    left join public.user_profiles p on p.user_id = u.id
    where m.group_id = $1
    order by m.created_at desc
    limit 50
  ) t`;

function viaSupabase(client: SupabaseClient, which: 'groups' | 'messages', groupId: string): () => Promise<unknown> {
  return async () => {
    const { data, error } =
      which === 'groups'
        ? await client.from('groups').select(GROUPS_SELECT).order('name').limit(GROUPS)
        : await client
            .from('group_chat_messages')
            .select(MESSAGES_SELECT)
            .eq('group_id', groupId)
            .order('created_at', { ascending: false })
            .limit(MESSAGES);
    if (error || !Array.isArray(data) || data.length !== (which === 'groups' ? GROUPS : MESSAGES)) {
      throw new Error(`unexpected answer: ${JSON.stringify(error ?? data).slice(0, 300)}`);
    }
    return data;
  };
}

/** The hand-written join, as the owner, or in a transaction under a role and claims (one round trip). */
function viaPg(
  pool: pg.Pool,
  which: 'groups' | 'messages',
  groupId: string,
  as?: { role: string; claims: string },
): () => Promise<unknown> {
  const text = which === 'groups' ? GROUPS_SQL : MESSAGES_SQL;
  const values = which === 'groups' ? [] : [groupId];
  return async () => {
    let body: string | undefined;
    if (!as) {
      body = (await pool.query<{ body: string }>(text, values)).rows[0]?.body;
    } else {
      const client = await pool.connect();
      const pipelined = client as unknown as { pipeline?: boolean };
      try {
        pipelined.pipeline = true;
        const [, , result] = await Promise.all([
          client.query('begin read only'),
          client.query(`select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`, [
            as.role,
            as.claims,
          ]),
          client.query<{ body: string }>(text, values),
          client.query('commit'),
        ]);
        body = result.rows[0]?.body;
      } finally {
        pipelined.pipeline = false;
        client.release();
      }
    }
    return JSON.parse(body ?? 'null') as unknown;
  };
}

interface Row {
  label: string;
  floor: Stats;
  localbase: Stats;
}

function report(rows: Row[]): string {
  const lines = [
    `${'read'.padEnd(46)} ${'floor p50'.padStart(10)} ${'floor p99'.padStart(10)} ${'lb p50'.padStart(8)} ${'lb p99'.padStart(8)} ${'added p50'.padStart(10)} ${'ratio'.padStart(6)} ${'lb calls/s'.padStart(11)} ${'cpu floor'.padStart(10)} ${'cpu lb'.padStart(8)}`,
  ];
  for (const { label, floor, localbase } of rows) {
    lines.push(
      `${label.padEnd(46)} ${floor.p50.toFixed(3).padStart(10)} ${floor.p99.toFixed(3).padStart(10)} ${localbase.p50.toFixed(3).padStart(8)} ${localbase.p99.toFixed(3).padStart(8)} ${(localbase.p50 - floor.p50).toFixed(3).padStart(10)} ${(localbase.p50 / floor.p50).toFixed(2).padStart(6)} ${localbase.perSecond.toFixed(0).padStart(11)} ${floor.cpuPerCall.toFixed(3).padStart(10)} ${localbase.cpuPerCall.toFixed(3).padStart(8)}`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  console.log(
    `localbase embedding benchmark on PostgreSQL 15: ${options.calls} calls per row, one at a time, floor and localbase alternating (times in ms); load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  const cluster = await startCluster();
  const database = await openDatabase({ databaseUrl: cluster.url, maxConnections: 10, migrate: false });
  const direct = new pg.Pool({ connectionString: cluster.url, max: 10 });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-bench-'));
  const localbase = await startLocalbase({ dataDir, database, port: 0 });
  try {
    const clientOptions = {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: ws as never },
    };
    const student = createClient(localbase.url, localbase.anonKey, clientOptions);
    const signUp = await student.auth.signUp({
      email: `bench-reader-${process.pid}@example.com`,
      password: 'bench-password',
    });
    if (signUp.error || !signUp.data.session) throw signUp.error ?? new Error('no session');
    const readerId = signUp.data.session.user.id;
    const claims = JSON.stringify(
      JSON.parse(Buffer.from(signUp.data.session.access_token.split('.')[1] as string, 'base64url').toString('utf8')),
    );
    const service = createClient(localbase.url, localbase.serviceRoleKey, clientOptions);
    const groupId = await seed(direct, readerId);

    const cases = [
      { label: 'A. 50 groups + members, service_role', which: 'groups' as const, client: service, as: undefined },
      {
        label: 'A. 50 groups + members, student (RLS)',
        which: 'groups' as const,
        client: student,
        as: { role: 'authenticated', claims },
      },
      {
        label: 'B. 50 messages + sender handle, service_role',
        which: 'messages' as const,
        client: service,
        as: undefined,
      },
      {
        label: 'B. 50 messages + sender handle, student (RLS)',
        which: 'messages' as const,
        client: student,
        as: { role: 'authenticated', claims },
      },
    ];
    const rows: Row[] = [];
    for (const entry of cases) {
      const lb = viaSupabase(entry.client, entry.which, groupId);
      const floor = viaPg(direct, entry.which, groupId, entry.as);
      const [fromLocalbase, fromFloor] = [await lb(), await floor()];
      if (!isDeepStrictEqual(fromLocalbase, fromFloor)) {
        throw new Error(
          `${entry.label}: localbase and the join disagree:\n${JSON.stringify(fromLocalbase).slice(0, 400)}\n${JSON.stringify(fromFloor).slice(0, 400)}`,
        );
      }
      const [floorStats, localbaseStats] = await measurePair(floor, lb, options.calls);
      rows.push({ label: entry.label, floor: floorStats, localbase: localbaseStats });
    }
    console.log(report(rows));
  } finally {
    await localbase.close();
    await rm(dataDir, { recursive: true, force: true });
    await direct.end();
    await database.close();
    await cluster.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

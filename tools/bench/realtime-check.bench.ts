// Benchmark: what one chat message's visibility check costs realtime, by the shape of the chat
// read policy. The statement is the one localbase runs per change (_localbase.realtime_visibility,
// every reader's own SELECT of the row under their role and claims), called directly for N members
// of one group, so only the policy differs between rows:
//   set     group_id in (select private.my_group_ids())           the set helper, as before
//   array   group_id = any ((select private.my_group_id_array()))  the policy the migrations install
//   floor   true                                                    no membership check at all
// Each variant gets a fresh database on PGlite (in-process) and on PostgreSQL 15 (a throwaway
// cluster), with the same members and message; the rounds alternate variants. Not a test: it
// never fails on a time.
//   node --import tsx tools/bench/realtime-check.bench.ts [--readers 200] [--rounds 60] [--engine both|pglite|postgres]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { installVisibility } from '#localbase/src/realtime/visibility.ts';
import { startCluster } from '../pg/cluster.ts';
import { openTestDatabase } from '../testing/test-database.ts';

const options = z
  .object({
    readers: z.coerce.number().int().min(1).max(5000),
    rounds: z.coerce.number().int().min(5).max(1000),
    engine: z.enum(['both', 'pglite', 'postgres']),
  })
  .parse(
    parseArgs({
      options: {
        readers: { type: 'string', default: '200' },
        rounds: { type: 'string', default: '60' },
        engine: { type: 'string', default: 'both' },
      },
    }).values,
  );

const POLICY = `"members read their group's messages"`;

const VARIANTS: Record<string, string> = {
  set: `drop policy ${POLICY} on public.group_chat_messages;
        create policy ${POLICY} on public.group_chat_messages for select to authenticated
          using (group_id in (select private.my_group_ids()));`,
  array: '',
  floor: `drop policy ${POLICY} on public.group_chat_messages;
          create policy ${POLICY} on public.group_chat_messages for select to authenticated using (true);`,
};

const CHECK = `select count(*) filter (where visible)::int as visible
  from _localbase.realtime_visibility('public', 'group_chat_messages', array['id'], $1, $2)`;

interface Prepared {
  pool: pg.Pool;
  record: string;
  readers: string;
  close(): Promise<void>;
}

/** Members, their group and one message, written as the owner with triggers off (setup only). */
async function prepare(pool: pg.Pool, variant: string, close: () => Promise<void>): Promise<Prepared> {
  await pool.query('create schema if not exists _localbase');
  await installVisibility(pool);
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    const { rows } = await client.query<{ id: string }>(
      `insert into auth.users (id, email) select gen_random_uuid(), 'reader' || g || '@bench.test'
       from generate_series(1, $1::int) g returning id`,
      [options.readers],
    );
    const users = rows.map((row) => row.id);
    await client.query(`insert into public.users (id, username) select u, u::text from unnest($1::uuid[]) u`, [users]);
    const group = (
      await client.query<{ id: string }>(
        `insert into public.groups (name, slug, visibility) values ('Bench', 'bench', 'private') returning id`,
      )
    ).rows[0]!.id;
    await client.query(`insert into public.group_members (group_id, user_id) select $1, u from unnest($2::uuid[]) u`, [
      group,
      users,
    ]);
    const message = (
      await client.query<{ id: string }>(
        `insert into public.group_chat_messages (group_id, sender_id, content) values ($1, $2, 'hello') returning id`,
        [group, users[0]],
      )
    ).rows[0]!.id;
    if (VARIANTS[variant]) await client.query(VARIANTS[variant]!);
    await client.query('commit');
    const readers = users.map((sub) => ({
      role: 'authenticated',
      claims: JSON.stringify({ sub, role: 'authenticated' }),
      session: null,
    }));
    return { pool, record: JSON.stringify({ id: message, group_id: group }), readers: JSON.stringify(readers), close };
  } finally {
    client.release();
  }
}

async function check(prepared: Prepared, variant: string): Promise<number> {
  const started = performance.now();
  const { rows } = await prepared.pool.query<{ visible: number }>(CHECK, [prepared.record, prepared.readers]);
  const elapsed = performance.now() - started;
  // Every reader is a member: a variant that hid the message from one would measure something else.
  if (rows[0]?.visible !== options.readers)
    throw new Error(`${variant}: ${rows[0]?.visible} of ${options.readers} readers saw the message`);
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function runEngine(
  engine: string,
  open: () => Promise<{ pool: pg.Pool; close(): Promise<void> }>,
): Promise<void> {
  const prepared = new Map<string, Prepared>();
  for (const variant of Object.keys(VARIANTS)) {
    const database = await open();
    prepared.set(variant, await prepare(database.pool, variant, database.close));
  }
  const times = new Map<string, number[]>([...prepared.keys()].map((variant) => [variant, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const [variant, database] of prepared) times.get(variant)!.push(await check(database, variant));
  }
  for (const [variant, database] of prepared) {
    const values = times.get(variant)!.slice(3);
    console.log(
      `| ${engine} | ${variant} | ${median(values).toFixed(1)} ms | ${Math.min(...values).toFixed(1)} ms | ${((median(values) / options.readers) * 1000).toFixed(0)} µs |`,
    );
    await database.close();
  }
}

console.log(`${options.readers} readers, ${options.rounds} rounds (the first 3 not counted)\n`);
console.log('| engine | chat read policy | check p50 | min | per reader |');
console.log('|---|---|---:|---:|---:|');
if (options.engine !== 'postgres') {
  await runEngine('PGlite', async () => openTestDatabase());
}
if (options.engine !== 'pglite') {
  const cluster = await startCluster();
  try {
    let copy = 0;
    await runEngine('PostgreSQL 15', async () => {
      // One database per variant, created from the migrated one.
      const name = `bench_check_${copy++}`;
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query(`create database ${name} template studyhall`);
      await admin.end();
      const pool = new pg.Pool({ connectionString: cluster.url.replace(/\/studyhall$/, `/${name}`), max: 1 });
      return { pool, close: () => pool.end() };
    });
  } finally {
    await cluster.stop();
  }
}

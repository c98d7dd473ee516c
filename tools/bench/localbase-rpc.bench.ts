// Benchmark: one RPC round trip through supabase-js against localbase, on PGlite and on
// PostgreSQL 15, beside the same call made directly with `pg` (the floor). PGlite runs twice: on
// the calling thread and in its worker thread (the product's engine). Prints round trips per
// second, p50 and p99, and the ratios. Not a test: it never fails on a time.
//   node --import tsx tools/bench/localbase-rpc.bench.ts [--calls 2000] [--concurrency 50]
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import ws from 'ws';
import { z } from 'zod';
import { MEMORY, openDatabase, type Database } from '#db/database.ts';
import { startLocalbase } from '#localbase';
import { startCluster } from '../pg/cluster.ts';
import { openTestDatabase, testDatabaseSnapshot } from '../testing/test-database.ts';

const options = z
  .object({ calls: z.coerce.number().int().min(10).max(100_000), concurrency: z.coerce.number().int().min(1).max(500) })
  .parse(
    parseArgs({
      options: { calls: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '50' } },
    }).values,
  );

const PAYLOAD = { sessions: [1, 2, 3], tasks: [{ id: 1 }], settings: { theme: 'dark', sound: true } };
const EXPECTED = 6;

interface Stats {
  perSecond: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Runs `calls` calls spread over `concurrency` workers; latencies in ms. */
async function measure(call: () => Promise<void>, calls: number, concurrency: number): Promise<Stats> {
  for (let i = 0; i < Math.min(200, calls); i++) await call(); // warm-up: JIT, plan caches, pools
  const latencies: number[] = [];
  let remaining = calls;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (remaining > 0) {
        remaining -= 1;
        const t0 = performance.now();
        await call();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: calls / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

async function signedInClient(url: string, anonKey: string): Promise<SupabaseClient> {
  const client = createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: ws as never },
  });
  const { error } = await client.auth.signUp({ email: `bench-${process.pid}@example.com`, password: 'bench-password' });
  if (error) throw error;
  return client;
}

function viaSupabase(client: SupabaseClient): () => Promise<void> {
  return async () => {
    const { data, error } = await client.rpc('backup_richness', { payload: PAYLOAD });
    if (error || data !== EXPECTED) throw new Error(`unexpected RPC answer: ${JSON.stringify(error ?? data)}`);
  };
}

function viaPg(pool: pg.Pool): () => Promise<void> {
  const text = JSON.stringify(PAYLOAD);
  return async () => {
    const result = await pool.query<{ richness: number }>('select public.backup_richness($1::jsonb) as richness', [
      text,
    ]);
    if (result.rows[0]?.richness !== EXPECTED) throw new Error('unexpected pg answer');
  };
}

interface EngineRun {
  engine: string;
  rows: { label: string; stats: Stats }[];
  /** The per-request session check with and without the ban lookup, measured alternately. */
  guard: { label: string; stats: Stats }[];
}

// The per-request check before bans: the session's row alone. The installed one joins the user
// to read banned_until (session-guard.ts); both are swapped in and out within one run.
const SESSION_ONLY_GUARD = `
create or replace function _localbase.require_live_session(p_session uuid) returns boolean
language plpgsql stable security definer set search_path = ''
as $$
begin
  if p_session is not null and not exists (select 1 from auth.sessions s where s.id = p_session) then
    raise exception 'session_ended' using errcode = 'LB401';
  end if;
  return true;
end
$$;`;

async function installedGuard(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ definition: string }>(
    `select pg_get_functiondef('_localbase.require_live_session(uuid)'::regprocedure) as definition`,
  );
  return rows[0]?.definition ?? '';
}

/** Alternates the installed check (session + ban) and the session-only one, three rounds each. */
async function measureGuard(pool: pg.Pool, client: SupabaseClient): Promise<EngineRun['guard']> {
  const installed = await installedGuard(pool);
  const calls = Math.max(10, Math.floor(options.calls / 3));
  const withBan: Stats[] = [];
  const sessionOnly: Stats[] = [];
  try {
    for (let round = 0; round < 3; round++) {
      await pool.query(installed);
      withBan.push(await measure(viaSupabase(client), calls, 1));
      await pool.query(SESSION_ONLY_GUARD);
      sessionOnly.push(await measure(viaSupabase(client), calls, 1));
    }
  } finally {
    await pool.query(installed);
  }
  const median = (runs: Stats[]) => [...runs].sort((a, b) => a.p50 - b.p50)[1] as Stats;
  return [
    { label: 'session check only (before bans), 1 at a time', stats: median(sessionOnly) },
    { label: 'session + ban check (installed), 1 at a time', stats: median(withBan) },
  ];
}

async function runEngine(engine: string, database: Database, directPool: pg.Pool): Promise<EngineRun> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-bench-'));
  const localbase = await startLocalbase({ dataDir, database, port: 0 });
  try {
    const client = await signedInClient(localbase.url, localbase.anonKey);
    const rows = [
      { label: 'pg direct, 1 at a time', stats: await measure(viaPg(directPool), options.calls, 1) },
      { label: 'supabase-js -> localbase, 1 at a time', stats: await measure(viaSupabase(client), options.calls, 1) },
      {
        label: `pg direct, ${options.concurrency} concurrent`,
        stats: await measure(viaPg(directPool), options.calls, options.concurrency),
      },
      {
        label: `supabase-js -> localbase, ${options.concurrency} concurrent`,
        stats: await measure(viaSupabase(client), options.calls, options.concurrency),
      },
    ];
    return { engine, rows, guard: await measureGuard(database.pool, client) };
  } finally {
    await localbase.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function report(run: EngineRun): string {
  const lines = [
    `\n${run.engine}`,
    `${'path'.padEnd(44)} ${'calls/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`,
  ];
  for (const { label, stats } of run.rows) {
    lines.push(
      `${label.padEnd(44)} ${stats.perSecond.toFixed(0).padStart(9)} ${stats.p50.toFixed(3).padStart(8)} ${stats.p99.toFixed(3).padStart(8)}`,
    );
  }
  const [pgOne, lbOne, pgMany, lbMany] = run.rows.map((row) => row.stats) as [Stats, Stats, Stats, Stats];
  lines.push(
    `localbase adds ${(lbOne.p50 - pgOne.p50).toFixed(3)} ms at p50 (1 at a time); ` +
      `throughput ratio localbase/pg: ${(lbOne.perSecond / pgOne.perSecond).toFixed(2)} (1 at a time), ` +
      `${(lbMany.perSecond / pgMany.perSecond).toFixed(2)} (${options.concurrency} concurrent)`,
  );
  for (const { label, stats } of run.guard) {
    lines.push(
      `${label.padEnd(44)} ${stats.perSecond.toFixed(0).padStart(9)} ${stats.p50.toFixed(3).padStart(8)} ${stats.p99.toFixed(3).padStart(8)}`,
    );
  }
  const [before, after] = run.guard.map((row) => row.stats) as [Stats, Stats];
  lines.push(
    `the ban lookup adds ${(after.p50 - before.p50).toFixed(3)} ms at p50; throughput ratio with/without: ${(after.perSecond / before.perSecond).toFixed(2)}`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  console.log(
    `localbase RPC benchmark: public.backup_richness(jsonb) as a signed-in user, ${options.calls} calls per row`,
  );

  // PGlite: one in-process session, so "pg direct" goes through the same size-1 pool.
  const embedded = await openTestDatabase();
  try {
    const database: Database = {
      kind: 'pglite',
      pool: embedded.pool,
      migrations: { applied: [] },
      location: 'memory://',
      close: async () => {},
    };
    console.log(report(await runEngine('PGlite (in-process, pool of 1)', database, embedded.pool)));
  } finally {
    await embedded.close();
  }

  // PGlite in its worker thread, as the product opens it: the same pool of 1, each protocol
  // exchange a message to the thread and back.
  const worker = await openDatabase({
    dataDir: MEMORY,
    migrate: false,
    pglite: { loadDataDir: await testDatabaseSnapshot() },
  });
  try {
    console.log(report(await runEngine('PGlite (worker thread, pool of 1)', worker, worker.pool)));
  } finally {
    await worker.close();
  }

  const cluster = await startCluster();
  const database = await openDatabase({ databaseUrl: cluster.url, maxConnections: 10, migrate: false });
  const direct = new pg.Pool({ connectionString: cluster.url, max: 10 });
  try {
    console.log(report(await runEngine('PostgreSQL 15 (loopback TCP, pools of 10)', database, direct)));
  } finally {
    await direct.end();
    await database.close();
    await cluster.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

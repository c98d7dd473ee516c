// PGlite's buffer pool: Postgres's default shared_buffers (128 MB) against studyhall's (32 MB,
// db/pglite.ts), side by side in one run, on copies of one migrated database with a few
// thousand users (not a test; it prints figures and ratios).
//   latency  the same query mix (catalog reads as localbase's schema cache does, an RLS-free table
//            read, a policy count) on both engines in one process, interleaved sample by sample
//   memory   resident set of a process that opens the engine and runs the mix, one process per
//            setting, alternated
// Run: node --import tsx tools/bench/pglite-buffers.bench.ts [--samples 400] [--processes 3] [--settings 128MB,32MB]
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { openDatabase } from '#db/database.ts';

const { values: flags } = parseArgs({
  options: {
    samples: { type: 'string', default: '400' },
    processes: { type: 'string', default: '3' },
    settings: { type: 'string', default: '128MB,32MB' },
    child: { type: 'string' },
    setting: { type: 'string' },
  },
});
const SAMPLES = Number(flags.samples);
const PROCESSES = Number(flags.processes);
const SETTINGS = flags.settings.split(',');

const QUERIES = [
  `select c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
     from pg_class c join pg_attribute a on a.attrelid = c.oid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped`,
  `select p.proname, pg_get_function_arguments(p.oid) from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('public', 'private')`,
  `select id, email from auth.users order by created_at desc limit 50`,
  `select count(*) from pg_policies`,
];

function openEngine(pgdata: string, sharedBuffers: string): Promise<PGlite> {
  return PGlite.create(pgdata, {
    extensions: { pgcrypto, pg_trgm },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`],
  });
}

async function runMix(engine: PGlite): Promise<number> {
  const started = performance.now();
  for (const sql of QUERIES) await engine.query(sql);
  return performance.now() - started;
}

/** Child mode: open one engine, run the mix SAMPLES times, print the resident set in MB. */
async function child(pgdata: string, sharedBuffers: string): Promise<void> {
  const engine = await openEngine(pgdata, sharedBuffers);
  for (let index = 0; index < SAMPLES; index += 1) await runMix(engine);
  process.stdout.write(`${(process.memoryUsage().rss / 1048576).toFixed(1)}\n`);
  await engine.close();
}

function rssOf(pgdata: string, sharedBuffers: string): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  const worker = spawn(
    process.execPath,
    ['--import', 'tsx', script, '--child', pgdata, '--setting', sharedBuffers, '--samples', String(SAMPLES)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  worker.stdout.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) =>
    worker.on('exit', (code) =>
      code === 0 ? resolve(Number(output.trim())) : reject(new Error(`child exited ${code}`)),
    ),
  );
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;
const median = (values: number[]) => percentile(values, 0.5);

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'studyhall-buffers-bench-'));
  try {
    const database = await openDatabase({ dataDir: path.join(dir, 'source') });
    await database.pool.query(
      `insert into auth.users (id, email) select gen_random_uuid(), 'bench' || g || '@example.com' from generate_series(1, 3000) g`,
    );
    await database.close();
    const copies = await Promise.all(
      SETTINGS.map(async (setting) => {
        const pgdata = path.join(dir, `pgdata-${setting}`);
        await cp(path.join(dir, 'source', 'pgdata'), pgdata, { recursive: true });
        return { setting, pgdata };
      }),
    );

    const engines = await Promise.all(copies.map(({ pgdata, setting }) => openEngine(pgdata, setting)));
    const latencies = SETTINGS.map(() => [] as number[]);
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      for (const [index, engine] of engines.entries()) latencies[index]!.push(await runMix(engine));
    }
    await Promise.all(engines.map((engine) => engine.close()));

    const rss = SETTINGS.map(() => [] as number[]);
    for (let round = 0; round < PROCESSES; round += 1) {
      for (const [index, { pgdata, setting }] of copies.entries()) rss[index]!.push(await rssOf(pgdata, setting));
    }

    console.log(
      `shared_buffers, ${SAMPLES} samples of ${QUERIES.length} queries each (interleaved), RSS over ${PROCESSES} processes each (alternated)`,
    );
    for (const [index, setting] of SETTINGS.entries()) {
      const times = latencies[index]!;
      console.log(
        `${setting.padEnd(6)} mix p50 ${median(times).toFixed(2)} ms, p95 ${percentile(times, 0.95).toFixed(2)} ms | RSS median ${median(rss[index]!).toFixed(0)} MB (${rss[index]!.map((mb) => mb.toFixed(0)).join(', ')})`,
      );
    }
    for (let index = 1; index < SETTINGS.length; index += 1) {
      console.log(
        `${SETTINGS[index]}/${SETTINGS[0]}: p50 ${(median(latencies[index]!) / median(latencies[0]!)).toFixed(2)}, p95 ${(percentile(latencies[index]!, 0.95) / percentile(latencies[0]!, 0.95)).toFixed(2)}, RSS ${(median(rss[index]!) / median(rss[0]!)).toFixed(2)}`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (flags.child) await child(flags.child, flags.setting ?? '32MB');
else await main();

// Soak benchmark (not a test; it prints figures): `npm start`'s compiled server on a fresh
// DATA_DIR, used by a class for a whole lesson (soak-class.ts: 200 students by default, each with
// a realtime socket, a focus page's event stream, some with a phone, acting every ~4 s and
// reloading the page every ~3 minutes), while the server's memory is sampled every 10 s:
// `process.memoryUsage()` of the server (RSS, heapUsed, external, arrayBuffers, read through its
// inspector: the server runs with --inspect on a free loopback port, nothing added to its code)
// and the PSS of its postgres processes (and how much of it is the shared buffer pool), and the
// sockets the server holds open. Memory must be flat once warm: the bench passes when the
// server's RSS and the postgres processes' PSS each grew by less than 10 % over the measured
// window (the run after the warm-up), comparing the window's first minute with its last.
// Prints one row per minute (ready for a README), the server 10 s and 60 s after the class left
// (what it still holds then is held for good), and the verdict; exit code 1 when it fails.
// Run: node --import tsx tools/bench/soak.bench.ts                 # 200 students, 30 min (10 of warm-up)
//      node --import tsx tools/bench/soak.bench.ts --quick         # 50 students, 2 min, for developers
//        [--students 200] [--groups 10] [--minutes 30] [--warmup-minutes 10] [--every-ms 4000]
//        [--reload-every-s 180] [--sample-s 10] [--engine postgres|pglite] [--csv samples.csv]
//        [--collect-garbage]   a full garbage collection before each sample: heapUsed is then the
//                              live heap, which shows a leak of JavaScript objects without the
//                              collector's sawtooth (and the RSS is no longer what it would be)
//        [--heap-snapshots DIR]  writes heap snapshots of the server to DIR: idle (before the class),
//                              warm (at the end of the warm-up), end (at the end of the lesson) and
//                              left (10 s after the class left); compare two with heap-diff.ts
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { repoRoot } from '#db/paths.ts';
import { keysFile } from '#localbase';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { freePort } from '../testing/free-port.ts';
import { InspectorClient, inspectorUrlIn } from './inspector-memory.ts';
import { loadAverageText, openSockets, postgresPss } from './process-memory.ts';
import { SoakClass } from './soak-class.ts';

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    students: { type: 'string' },
    groups: { type: 'string' },
    minutes: { type: 'string' },
    'warmup-minutes': { type: 'string' },
    'every-ms': { type: 'string', default: '4000' },
    'reload-every-s': { type: 'string' },
    'sample-s': { type: 'string', default: '10' },
    engine: { type: 'string', default: 'postgres' },
    csv: { type: 'string' },
    'collect-garbage': { type: 'boolean', default: false },
    'heap-snapshots': { type: 'string' },
  },
});
const quick = flags.quick;
const options = z
  .object({
    students: z.coerce.number().int().min(2).max(2_000),
    groups: z.coerce.number().int().min(1).max(200),
    minutes: z.coerce.number().min(1).max(600),
    warmupMinutes: z.coerce.number().min(0),
    everyMs: z.coerce.number().min(100).max(60_000),
    reloadEveryS: z.coerce.number().min(5),
    sampleS: z.coerce.number().min(1).max(60),
    engine: z.enum(['postgres', 'pglite']),
  })
  .refine((value) => value.warmupMinutes < value.minutes, 'the warm-up must end before the run does')
  .parse({
    students: flags.students ?? (quick ? 50 : 200),
    groups: flags.groups ?? (quick ? 5 : 10),
    minutes: flags.minutes ?? (quick ? 2 : 30),
    warmupMinutes: flags['warmup-minutes'] ?? (quick ? 0.5 : 10),
    everyMs: flags['every-ms'],
    reloadEveryS: flags['reload-every-s'] ?? (quick ? 30 : 180),
    sampleS: flags['sample-s'],
    engine: flags.engine,
  });
/** The verdict's growth limit over the measured window. */
const MAX_GROWTH = 0.1;
const MiB = 1024 * 1024;
const TABLE_HEAD = [
  '| min | RSS MiB (max) | heapUsed MiB | external MiB | arrayBuffers MiB | postgres PSS MiB (shared; processes) | server sockets | requests | errors | load |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
].join('\n');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the server: npm start's compiled server, with its inspector on a free loopback port -------

const temp = await makeTempDir('soak-bench');
const port = await freePort();
const localbasePort = await freePort();
const gatewayUrl = `http://127.0.0.1:${port}`;
const localbaseUrl = `http://127.0.0.1:${localbasePort}`;
const dataDir = path.join(temp.dir, 'data');
const server = spawn(process.execPath, ['--inspect=127.0.0.1:0', 'tools/build/start.mjs', 'gateway-main'], {
  cwd: repoRoot,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOCALBASE_PORT: String(localbasePort),
    DATA_DIR: dataDir,
    LOG_DIR: path.join(temp.dir, 'logs'),
    // npm start's default level: every request goes to server.log, as it does in a lesson.
    LOG_LEVEL: 'info',
    DATABASE_URL: '',
    LOCALBASE_ENGINE: options.engine,
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let serverOutput = '';
server.stdout.on('data', (chunk) => (serverOutput += chunk));
server.stderr.on('data', (chunk) => (serverOutput += chunk));
const serverExited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
process.on('exit', () => server.exitCode === null && server.kill('SIGTERM'));

const upDeadline = Date.now() + 240_000;
while (!serverOutput.includes('studyhall: logs')) {
  if (server.exitCode !== null || Date.now() > upDeadline)
    throw new Error(`npm start did not come up:\n${serverOutput}`);
  await sleep(100);
}
const serverPid = server.pid as number;
const inspector = await InspectorClient.connect(inspectorUrlIn(serverOutput) as string);

// ---- sampling ----------------------------------------------------------------------------------

interface Sample {
  /** Seconds since the lesson began (negative: before). */
  at: number;
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  postgres: number;
  /** Of `postgres`: shared memory, the buffer pool mostly (bounded by shared_buffers). */
  postgresShmem: number;
  postgresProcesses: number;
  /** Sockets the server process holds open (the class's connections, postgres's, its listeners). */
  serverSockets: number;
  sockets: number;
  streams: number;
  requests: number;
  errors: number;
  load: number;
}

const samples: Sample[] = [];
let lessonStart = performance.now();
let soakClass: SoakClass | undefined;

async function sample(): Promise<Sample> {
  if (flags['collect-garbage']) await inspector.collectGarbage();
  const memory = await inspector.memoryUsage();
  const postgres = await postgresPss(serverPid);
  const counts = soakClass?.counts;
  const taken: Sample = {
    at: (performance.now() - lessonStart) / 1000,
    rss: memory.rss / MiB,
    heapUsed: memory.heapUsed / MiB,
    external: memory.external / MiB,
    arrayBuffers: memory.arrayBuffers / MiB,
    postgres: postgres.mib,
    postgresShmem: postgres.shmemMib,
    postgresProcesses: postgres.processes,
    serverSockets: await openSockets(serverPid),
    sockets: counts?.socketsOpen() ?? 0,
    streams: counts?.streamsOpen() ?? 0,
    requests: counts ? [...counts.requests.values()].reduce((sum, count) => sum + count, 0) : 0,
    errors: counts ? [...counts.errors.values()].reduce((sum, count) => sum + count, 0) : 0,
    load: os.loadavg()[0] ?? 0,
  };
  samples.push(taken);
  return taken;
}

/** A heap snapshot of the server, when --heap-snapshots asks for them (it pauses the server for seconds). */
async function snapshot(name: string): Promise<void> {
  if (!flags['heap-snapshots']) return;
  const file = path.join(flags['heap-snapshots'], `soak-${name}.heapsnapshot`);
  await inspector.writeHeapSnapshot(file);
  console.log(`heap snapshot: ${file}`);
}

function describe(taken: Sample): string {
  return `RSS ${taken.rss.toFixed(0)} MiB, heapUsed ${taken.heapUsed.toFixed(0)} MiB, external ${taken.external.toFixed(1)} MiB, postgres ${taken.postgres.toFixed(0)} MiB PSS (${taken.postgresShmem.toFixed(0)} shared; ${taken.postgresProcesses} processes), ${taken.serverSockets} sockets open in the server`;
}

// ---- the run -------------------------------------------------------------------------------------

let failed = false;
try {
  const { anonKey } = JSON.parse(await readFile(keysFile(dataDir), 'utf8')) as { anonKey: string };
  console.log(
    `soak bench: ${options.students} students in ${options.groups} groups for ${options.minutes} min ` +
      `(warm-up ${options.warmupMinutes} min), an action every ~${options.everyMs} ms, a reload every ~${options.reloadEveryS} s, ` +
      `a sample every ${options.sampleS} s; ${os.cpus().length} cores, load average ${loadAverageText(os.loadavg())}`,
  );
  console.log(serverOutput.split('\n').find((line) => line.startsWith('studyhall: engine')) ?? '');
  console.log(`idle, before the class: ${describe(await sample())}`);
  await snapshot('idle');

  soakClass = new SoakClass({
    gatewayUrl,
    localbaseUrl,
    anonKey,
    students: options.students,
    groups: options.groups,
    everyMs: options.everyMs,
    reloadEveryMs: options.reloadEveryS * 1000,
  });
  const arrivalStarted = performance.now();
  await soakClass.arrive();
  console.log(
    `the class arrived in ${((performance.now() - arrivalStarted) / 1000).toFixed(0)} s: ${describe(await sample())}; load average ${loadAverageText(os.loadavg())}`,
  );

  samples.length = 0;
  lessonStart = performance.now();
  const lessonEnds = lessonStart + options.minutes * 60_000;
  let sampling = true;
  const warmSnapshot = sleep(options.warmupMinutes * 60_000).then(() => snapshot('warm'));
  // Each minute's row is printed as the minute ends, so a long run shows how it goes.
  console.log(TABLE_HEAD);
  const sampler = (async () => {
    let next = lessonStart;
    let minutesShown = 0;
    while (sampling) {
      const taken = await sample();
      if (Math.floor(taken.at / 60) > minutesShown) {
        minutesShown = Math.floor(taken.at / 60);
        console.log(minuteRow(minutesShown) ?? '');
      }
      next += options.sampleS * 1000;
      await sleep(Math.max(0, next - performance.now()));
    }
  })();
  await soakClass.lesson(lessonEnds);
  sampling = false;
  await sampler;
  await warmSnapshot;
  await snapshot('end');
  const loadAtEnd = loadAverageText(os.loadavg());

  await soakClass.leave();
  await sleep(10_000);
  const afterLeaving = await sample();
  samples.pop();
  await snapshot('left');
  // Connections the server has not let go of yet after a minute would be left behind for good.
  await sleep(50_000);
  const minuteAfterLeaving = await sample();
  samples.pop();

  // ---- figures ---------------------------------------------------------------------------------

  const counts = soakClass.counts;
  console.log('');
  console.log(TABLE_HEAD);
  for (let minute = 1; minute <= Math.ceil(options.minutes); minute += 1) {
    const row = minuteRow(minute);
    if (row) console.log(row);
  }
  console.log('');
  const requests = [...counts.requests.values()].reduce((sum, count) => sum + count, 0);
  const errors = [...counts.errors.values()].reduce((sum, count) => sum + count, 0);
  console.log(
    `requests ${requests} (${[...counts.requests].map(([kind, count]) => `${kind} ${count}`).join(', ')}); ` +
      `errors ${errors}${errors ? ` (${[...counts.errors].map(([kind, count]) => `${kind} ${count}`).join(', ')}; first: ${counts.firstErrors.join(' | ')})` : ''}`,
  );
  console.log(
    `reloads ${counts.reloads}; chat ${counts.chatSent} messages, ${counts.deliveriesExpected} deliveries expected (members joined when it was sent), ${counts.deliveriesReceived} received`,
  );
  console.log(`after the class left (10 s later): ${describe(afterLeaving)}`);
  console.log(`a minute after the class left: ${describe(minuteAfterLeaving)}`);
  console.log(`load average at the end of the lesson ${loadAtEnd} on ${os.cpus().length} cores`);
  const serverWarnings = serverOutput.split('\n').filter((line) => / (WARN|ERROR|FATAL) /.test(line));
  console.log(
    `server warnings and errors on its terminal: ${serverWarnings.length}${serverWarnings.length ? ` (first: ${serverWarnings[0]})` : ''}`,
  );

  const verdicts = [verdict('server RSS', 'rss'), verdict('postgres PSS', 'postgres')];
  const heap = growth('heapUsed');
  console.log(
    `heapUsed over the window: ${heap.from.toFixed(0)} -> ${heap.to.toFixed(0)} MiB (${percent(heap.ratio)}; not judged: it follows the garbage collector's cycle)`,
  );
  const pss = growth('postgres');
  const shared = growth('postgresShmem');
  console.log(
    `postgres PSS outside shared memory (the backends' own): ${(pss.from - shared.from).toFixed(0)} -> ${(pss.to - shared.to).toFixed(0)} MiB; ` +
      `shared memory (the buffer pool, up to shared_buffers): ${shared.from.toFixed(0)} -> ${shared.to.toFixed(0)} MiB`,
  );
  for (const line of verdicts) console.log(line.text);
  failed = verdicts.some((line) => !line.pass);
  console.log(failed ? 'verdict: FAIL, memory grows after warm-up' : 'verdict: PASS, memory is flat after warm-up');
  if (flags.csv) {
    const columns = Object.keys(samples[0] ?? {}) as (keyof Sample)[];
    const rows = samples.map((each) => columns.map((column) => Number(each[column]).toFixed(2)).join(','));
    await writeFile(flags.csv, `${columns.join(',')}\n${rows.join('\n')}\n`);
    console.log(`samples written to ${flags.csv}`);
  }
} catch (error) {
  console.error(error);
  failed = true;
} finally {
  inspector.close();
  if (server.exitCode === null) server.kill('SIGTERM');
  await serverExited;
  await rm(temp.dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** One minute of the lesson: the means of its samples, and what was asked in it. */
function minuteRow(minute: number): string | undefined {
  const inMinute = samples.filter((each) => each.at >= (minute - 1) * 60 && each.at < minute * 60);
  const last = inMinute.at(-1);
  if (!last) return undefined;
  const before = samples.filter((each) => each.at < (minute - 1) * 60).at(-1);
  return (
    `| ${minute}${minute <= options.warmupMinutes ? ' (warm-up)' : ''} | ${mean(inMinute, 'rss').toFixed(0)} (${Math.max(...inMinute.map((each) => each.rss)).toFixed(0)}) | ` +
    `${mean(inMinute, 'heapUsed').toFixed(0)} | ${mean(inMinute, 'external').toFixed(1)} | ${mean(inMinute, 'arrayBuffers').toFixed(1)} | ` +
    `${mean(inMinute, 'postgres').toFixed(0)} (${mean(inMinute, 'postgresShmem').toFixed(0)}; ${last.postgresProcesses}) | ${last.serverSockets} | ${last.requests - (before?.requests ?? 0)} | ${last.errors - (before?.errors ?? 0)} | ${last.load.toFixed(1)} |`
  );
}

function mean(list: Sample[], key: keyof Sample): number {
  return list.reduce((sum, each) => sum + each[key], 0) / Math.max(1, list.length);
}

function percent(ratio: number): string {
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)} %`;
}

/**
 * Growth over the measured window (after the warm-up): the mean of its first minute against the
 * mean of its last (a third of the window each when it is shorter than three minutes), so one
 * sample caught before or after a garbage collection does not decide it.
 */
function growth(key: keyof Sample): { from: number; to: number; ratio: number } {
  const start = options.warmupMinutes * 60;
  const end = options.minutes * 60;
  const span = Math.min(60, (end - start) / 3);
  const first = samples.filter((each) => each.at >= start && each.at < start + span);
  const last = samples.filter((each) => each.at >= end - span);
  // A heap snapshot holds the sampler for minutes: then the window's first samples come later.
  const from = mean(first.length > 0 ? first : samples.filter((each) => each.at >= start).slice(0, 3), key);
  const to = mean(last, key);
  return { from, to, ratio: (to - from) / from };
}

function verdict(label: string, key: keyof Sample): { pass: boolean; text: string } {
  const { from, to, ratio } = growth(key);
  const pass = ratio < MAX_GROWTH;
  return {
    pass,
    text: `${label} over the last ${options.minutes - options.warmupMinutes} min: ${from.toFixed(0)} -> ${to.toFixed(0)} MiB (${percent(ratio)}, limit +${MAX_GROWTH * 100} %): ${pass ? 'flat' : 'GROWS'}`,
  };
}

// Boot benchmark (not a test; it prints figures): `npm start` as a person runs it, on a fresh
// DATA_DIR each run.
//   cold   time from spawn to a healthy /api/health (backend up) on an empty DATA_DIR
//   warm   the same on the DATA_DIR the cold boot left behind
//   warm, first REST   from the same spawn to the answer of a Data API read sent as soon as the
//          server is healthy (the schema cache loads in the background; this shows when it serves)
//   idle   resident memory of the server process 10 s after the warm boot, and the proportional
//          set (PSS, /proc/<pid>/smaps_rollup) of the server and every postgres process it runs:
//          what the server and its database cost the machine (shared pages counted once)
//   mixed  resident memory after 1,000 mixed requests (health, version, PiP state and action,
//          signup and login through /__auth, REST reads through /__backend)
//   leak   resident memory after each of 10 more rounds of 1,000 mixed requests, and its growth
//          over all rounds and over the last half (warm-up settles early; a leak keeps growing)
//   phases the warm boot's own timeline: the server runs with STUDYHALL_BOOT_PHASES=1 and prints
//          when each step of its start ended, in ms since its process started (npm's own start
//          before it is not in them; gateway/src/logging/boot-phases.ts)
// Each figure is the median over --runs runs (min-max beside it). With --variants a,b the variants
// run interleaved run by run, so machine drift hits each alike, and the table ends with ratios.
// Run: node --import tsx tools/bench/boot.bench.ts [--runs 3] [--rounds 10] [--requests 1000]
//        [--idle-s 10] [--variants npm-start,pglite,compiled,tsx,main-thread,checkout] [--checkout <dir>]
// `npm-start` runs the default engine, the embedded PostgreSQL 15; `pglite` is `npm start` with
// LOCALBASE_ENGINE=pglite, the fallback, side by side (the default pair). `main-thread` is the
// compiled server with PGlite on the server's thread (STUDYHALL_PGLITE_THREAD=main), to weigh
// PGlite's worker thread against it.
// `checkout` is `npm start` in the folder --checkout names (another commit's worktree, its own
// `npm ci` done), to measure a change against the code before it in one run.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '#db/paths.ts';
import { freePort } from '../testing/free-port.ts';
import { makeReachableTempDir } from '../testing/reachable-temp-dir.ts';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '10' },
    requests: { type: 'string', default: '1000' },
    'idle-s': { type: 'string', default: '10' },
    variants: { type: 'string', default: 'npm-start,pglite' },
    checkout: { type: 'string' },
  },
});
const RUNS = Number(flags.runs);
const ROUNDS = Number(flags.rounds);
const REQUESTS = Number(flags.requests);
const IDLE_MS = Number(flags['idle-s']) * 1000;
const CONCURRENCY = 4;

/** How each variant starts the server; `npm-start` is whatever `npm start` runs on this checkout. */
const VARIANTS: Record<string, { command: string[]; cwd: string; env?: Record<string, string> }> = {
  'npm-start': { command: ['npm', 'start', '--silent'], cwd: repoRoot },
  // The same with the fallback engine.
  pglite: { command: ['npm', 'start', '--silent'], cwd: repoRoot, env: { LOCALBASE_ENGINE: 'pglite' } },
  // What `npm start` runs without npm in front (the compiled server, built first when stale) ...
  compiled: { command: [process.execPath, 'tools/build/start.mjs', 'gateway-main'], cwd: repoRoot },
  // ... and the TypeScript sources through the tsx loader, as `npm start` ran before it.
  tsx: { command: [process.execPath, '--import', 'tsx', 'gateway/src/main.ts'], cwd: repoRoot },
  // The compiled server with PGlite on the server's own thread instead of its worker thread.
  'main-thread': {
    command: [process.execPath, 'tools/build/start.mjs', 'gateway-main'],
    cwd: repoRoot,
    env: { STUDYHALL_PGLITE_THREAD: 'main', LOCALBASE_ENGINE: 'pglite' },
  },
};
// `npm start` of another checkout (a worktree of an older commit with its own `npm ci`), side by side.
if (flags.checkout) VARIANTS.checkout = { command: ['npm', 'start', '--silent'], cwd: path.resolve(flags.checkout) };
const variantNames = flags.variants.split(',').map((name) => name.trim());
for (const name of variantNames)
  if (!VARIANTS[name]) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}`);

// ---- the server process and its memory -------------------------------------------------------

async function childrenOf(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(
    tasks.map((task) => readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')),
  );
  return lists.flatMap((list) => list.trim().split(/\s+/).filter(Boolean).map(Number));
}

/** The resident set (MB) of the server: the node process in the spawned tree that is not npm. */
async function serverRssMb(rootPid: number): Promise<number> {
  const pending = [rootPid];
  let best = 0;
  while (pending.length > 0) {
    const pid = pending.pop()!;
    pending.push(...(await childrenOf(pid)));
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    if (comm !== 'node') continue; // npm renames itself ("npm start"); sh is not the server
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    best = Math.max(best, kb);
  }
  return best / 1024;
}

/**
 * The proportional set (MB) of the server (the node process that is not npm) and of every
 * postgres process below it: the memory the server and its database take, each shared page
 * counted once across them.
 */
async function serverAndDatabasePssMb(rootPid: number): Promise<{ server: number; database: number }> {
  const pending = [rootPid];
  const totals = { server: 0, database: 0 };
  while (pending.length > 0) {
    const pid = pending.pop()!;
    pending.push(...(await childrenOf(pid)));
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    if (comm !== 'node' && comm !== 'postgres') continue;
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
    const kb = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    if (comm === 'postgres') totals.database += kb / 1024;
    else totals.server = Math.max(totals.server, kb / 1024);
  }
  return totals;
}

/** CPU seconds (user + system) spent so far by the spawned tree: live processes and reaped children. */
async function treeCpuSeconds(rootPid: number): Promise<number> {
  const ticksPerSecond = 100; // USER_HZ on Linux
  const pending = [rootPid];
  let ticks = 0;
  while (pending.length > 0) {
    const pid = pending.pop()!;
    pending.push(...(await childrenOf(pid)));
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the parenthesised command: utime, stime, cutime, cstime are 14-17 of the whole line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
  }
  return ticks / ticksPerSecond;
}

interface Server {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  stop(): Promise<void>;
}

function startServer(variant: string, env: Record<string, string>): Server {
  const {
    command: [command, ...args],
    cwd,
    env: variantEnv,
  } = VARIANTS[variant]!;
  // Its own process group, so stopping it reaches node even when npm and sh sit in between.
  const child = spawn(command!, args, { cwd, env: { ...process.env, ...env, ...variantEnv }, detached: true });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    child,
    baseUrl: `http://127.0.0.1:${env.PORT}`,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
      await exited;
      // npm exits at once; the server behind it is done only when its whole group is gone (it
      // stops its database first), and the next boot must not find it still holding DATA_DIR.
      while (await groupAlive(child.pid!)) await sleep(20);
      clearTimeout(timer);
    },
  };
}

/** Whether a process of the group still runs (a zombie no reaper collected does not count). */
async function groupAlive(pgid: number): Promise<boolean> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 3 (state) and 5 (process group) of the whole line.
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

async function untilHealthy(server: Server, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.child.exitCode !== null)
      throw new Error(`the server exited (${server.child.exitCode}):\n${server.output()}`);
    if (Date.now() > deadline) throw new Error(`not healthy within ${timeoutMs} ms:\n${server.output()}`);
    const health = await request(server.baseUrl, 'GET', '/api/health').catch(() => undefined);
    if (
      health?.status === 200 &&
      (JSON.parse(health.body) as { backend?: { status?: string } }).backend?.status === 'up'
    )
      return;
    await sleep(20);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the mixed requests ----------------------------------------------------------------------

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

interface Answer {
  status: number;
  body: string;
}

function request(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  options: { body?: unknown; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const outgoing = http.request(
      `${baseUrl}${pathAndQuery}`,
      {
        method,
        // A request from its own loopback address is a client of its own to the per-address limit.
        ...(options.localAddress ? { localAddress: options.localAddress, agent: false } : { agent: keepAlive }),
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

let clientCounter = 0;
/** A fresh loopback source address (127.1.x.y) for each signup/login pair. */
function nextClientAddress(): string {
  clientCounter += 1;
  return `127.1.${Math.floor(clientCounter / 250) % 250}.${(clientCounter % 250) + 1}`;
}

type Step = (baseUrl: string, session: { token: string }) => Promise<Answer>;

/** One block of 100 requests; REQUESTS/100 blocks make a round. Expected statuses are checked. */
function block(): { expect: number; step: Step }[] {
  const steps: { expect: number; step: Step }[] = [];
  const add = (count: number, expect: number, step: Step) => {
    for (let index = 0; index < count; index += 1) steps.push({ expect, step });
  };
  add(25, 200, (base) => request(base, 'GET', '/api/health'));
  add(15, 200, (base) => request(base, 'GET', '/api/version'));
  add(20, 200, (base) => request(base, 'GET', '/api/pip/state'));
  add(10, 202, (base) => request(base, 'POST', '/api/pip/action', { body: { action: 'correct' } }));
  add(14, 200, (base, session) =>
    request(base, 'GET', '/__backend/rest/v1/user_tasks?select=*&order=created_at.desc&limit=20', {
      headers: { authorization: `Bearer ${session.token}` },
    }),
  );
  add(14, 200, (base, session) =>
    request(base, 'GET', '/__backend/rest/v1/user_profiles?select=*', {
      headers: { authorization: `Bearer ${session.token}` },
    }),
  );
  return steps;
}

async function signupAndLogin(
  baseUrl: string,
  session: { token: string },
  counts: { signup: number; login: number },
): Promise<Answer[]> {
  const localAddress = nextClientAddress();
  const credentials = {
    username: `bench${Date.now().toString(36)}${clientCounter}@example.com`,
    password: 'bench-password-1',
  };
  const signup = await request(baseUrl, 'POST', '/__auth/signup', { body: credentials, localAddress });
  if (signup.status !== 201) return [signup];
  counts.signup += 1;
  const login = await request(baseUrl, 'POST', '/__auth/login', { body: credentials, localAddress });
  if (login.status === 200) {
    counts.login += 1;
    session.token = (JSON.parse(login.body) as { session: { access_token: string } }).session.access_token;
  }
  return [signup, login];
}

/** REQUESTS mixed requests, CONCURRENCY at a time; throws on any unexpected status. */
async function mixedRound(baseUrl: string, session: { token: string }): Promise<void> {
  const blocks = Math.max(1, Math.round(REQUESTS / 100));
  const counts = { signup: 0, login: 0 };
  const failures: string[] = [];
  for (let index = 0; index < blocks; index += 1) {
    for (const answer of await signupAndLogin(baseUrl, session, counts)) {
      if (answer.status !== 200 && answer.status !== 201)
        failures.push(`auth ${answer.status}: ${answer.body.slice(0, 200)}`);
    }
    const steps = block();
    let next = 0;
    const worker = async () => {
      while (next < steps.length) {
        const { expect, step } = steps[next++]!;
        const answer = await step(baseUrl, session);
        if (answer.status !== expect)
          failures.push(`${answer.status} (expected ${expect}): ${answer.body.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }
  if (failures.length > 0) throw new Error(`${failures.length} requests failed, first: ${failures[0]}`);
}

// ---- one run ---------------------------------------------------------------------------------

interface RunFigures {
  coldMs: number;
  warmMs: number;
  /** Spawn to the answer of the first Data API read, sent as soon as the warm server is healthy. */
  warmFirstRestMs: number;
  /** CPU seconds the spawned tree used until healthy: steadier than wall time on a shared machine. */
  coldCpuS: number;
  warmCpuS: number;
  idleMb: number;
  /** PSS of the server and of its postgres processes, idle. */
  idlePssMb: number;
  idleDatabasePssMb: number;
  mixedMb: number;
  roundsMb: number[];
  /** The warm boot's phases: name -> ms since the server's process started, in the order printed. */
  warmPhases: Map<string, number>;
}

const PHASE_LINE = /^studyhall: boot phase +(\d+) ms (\S+)$/gm;

/** The phases the server printed after its status block (none from a checkout that predates them). */
async function bootPhases(server: Server): Promise<Map<string, number>> {
  // They follow the status block, which may reach us a moment after the first healthy answer.
  for (let waited = 0; waited < 2_000 && !server.output().includes('boot phase'); waited += 20) await sleep(20);
  await sleep(20);
  return new Map([...server.output().matchAll(PHASE_LINE)].map((match) => [match[2]!, Number(match[1])]));
}

async function oneRun(variant: string): Promise<RunFigures> {
  const dir = await makeReachableTempDir('studyhall-boot-bench-');
  try {
    const env = {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOCALBASE_PORT: String(await freePort()),
      DATA_DIR: path.join(dir, 'data'),
      LOG_DIR: path.join(dir, 'logs'),
      // The mixed requests use the relay without codes.
      PIP_PAIRING: 'off',
      STUDYHALL_BOOT_PHASES: '1',
    };
    const timedBoot = async () => {
      const started = performance.now();
      const server = startServer(variant, env);
      await untilHealthy(server);
      return { server, started, ms: performance.now() - started, cpuS: await treeCpuSeconds(server.child.pid!) };
    };

    const cold = await timedBoot();
    await cold.server.stop();

    const warm = await timedBoot();
    const server = warm.server;
    try {
      // As anon: any answer below 500 came through the schema cache (a refusal is checked after the table lookup).
      const firstRest = await request(server.baseUrl, 'GET', '/__backend/rest/v1/groups?select=id&limit=1');
      if (firstRest.status >= 500)
        throw new Error(
          `first Data API read failed: ${firstRest.status} ${firstRest.body.slice(0, 300)}\n${server.output()}`,
        );
      const warmFirstRestMs = performance.now() - warm.started;
      const warmPhases = await bootPhases(server);
      await sleep(IDLE_MS);
      const idleMb = await serverRssMb(server.child.pid!);
      const idlePss = await serverAndDatabasePssMb(server.child.pid!);
      const session = { token: '' };
      await mixedRound(server.baseUrl, session);
      const mixedMb = await serverRssMb(server.child.pid!);
      const roundsMb: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        await mixedRound(server.baseUrl, session);
        roundsMb.push(await serverRssMb(server.child.pid!));
      }
      return {
        coldMs: cold.ms,
        warmMs: warm.ms,
        warmFirstRestMs,
        coldCpuS: cold.cpuS,
        warmCpuS: warm.cpuS,
        idleMb,
        idlePssMb: idlePss.server + idlePss.database,
        idleDatabasePssMb: idlePss.database,
        mixedMb,
        roundsMb,
        warmPhases,
      };
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---- the table -------------------------------------------------------------------------------

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const spread = (values: number[], digits: number) =>
  values.length > 1 ? ` (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})` : '';
const cell = (values: number[], digits: number) => `${median(values).toFixed(digits)}${spread(values, digits)}`;

function printTable(results: Map<string, RunFigures[]>): void {
  const rows: string[][] = [
    [
      'variant',
      'cold ms',
      'warm ms',
      'warm, first REST ms',
      'cold CPU s',
      'warm CPU s',
      'idle RSS MB',
      'idle PSS MB, server + database (database)',
      'RSS after 1k MB',
      `leak: RSS after each of ${ROUNDS} rounds (median MB)`,
      `growth r2->r${ROUNDS} MB`,
      'growth, last half MB',
    ],
  ];
  for (const [variant, runs] of results) {
    const perRound = Array.from({ length: ROUNDS }, (_, round) => median(runs.map((run) => run.roundsMb[round]!)));
    const growth = runs.map(
      (run) => run.roundsMb[run.roundsMb.length - 1]! - run.roundsMb[Math.min(1, run.roundsMb.length - 1)]!,
    );
    // Warm-up (JIT, caches, PGlite pages read once) settles in the first rounds; a leak keeps growing.
    const lateGrowth = runs.map(
      (run) => run.roundsMb[run.roundsMb.length - 1]! - run.roundsMb[Math.floor(run.roundsMb.length / 2)]!,
    );
    rows.push([
      variant,
      cell(
        runs.map((run) => run.coldMs),
        0,
      ),
      cell(
        runs.map((run) => run.warmMs),
        0,
      ),
      cell(
        runs.map((run) => run.warmFirstRestMs),
        0,
      ),
      cell(
        runs.map((run) => run.coldCpuS),
        2,
      ),
      cell(
        runs.map((run) => run.warmCpuS),
        2,
      ),
      cell(
        runs.map((run) => run.idleMb),
        0,
      ),
      `${cell(
        runs.map((run) => run.idlePssMb),
        0,
      )} (${median(runs.map((run) => run.idleDatabasePssMb)).toFixed(0)})`,
      cell(
        runs.map((run) => run.mixedMb),
        0,
      ),
      perRound.map((mb) => mb.toFixed(0)).join(' '),
      cell(growth, 0),
      cell(lateGrowth, 0),
    ]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => `| ${row.map((text, column) => text.padEnd(widths[column]!)).join(' | ')} |`;
  console.log(line(rows[0]!));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows.slice(1)) console.log(line(row));

  printPhases(results);

  const [first, ...others] = [...results];
  for (const [variant, runs] of others) {
    const base = first![1];
    const ratio = (pick: (run: RunFigures) => number) => (median(runs.map(pick)) / median(base.map(pick))).toFixed(2);
    console.log(
      `${variant}/${first![0]}: cold ${ratio((run) => run.coldMs)}, warm ${ratio((run) => run.warmMs)}, warm CPU ${ratio((run) => run.warmCpuS)}, idle RSS ${ratio((run) => run.idleMb)}, idle PSS with the database ${ratio((run) => run.idlePssMb)}, RSS after 1k ${ratio((run) => run.mixedMb)}`,
    );
  }
}

/**
 * Per variant, each phase of the warm boot: when it ended (median over the runs) and the time since
 * the phase before it in that order. Phases of the launcher, the server and the database overlap
 * (the database opens while the code loads), so the gap is the wait between two marks, not the
 * cost of one step.
 */
function printPhases(results: Map<string, RunFigures[]>): void {
  for (const [variant, runs] of results) {
    const names = [...new Set(runs.flatMap((run) => [...run.warmPhases.keys()]))];
    if (names.length === 0) {
      console.log(`\n${variant}: no boot phases printed`);
      continue;
    }
    const ended = names
      .map((name) => ({
        name,
        ms: median(runs.map((run) => run.warmPhases.get(name)).filter((ms) => ms !== undefined)),
      }))
      .sort((a, b) => a.ms - b.ms);
    console.log(`\n${variant}, warm boot phases (ms since the server's process started; median of ${runs.length})`);
    console.log('| phase | ended at ms | after the one before, ms |');
    console.log('|---|---:|---:|');
    ended.forEach(({ name, ms }, index) => {
      const before = index === 0 ? 0 : ended[index - 1]!.ms;
      console.log(`| ${name} | ${ms.toFixed(0)} | ${(ms - before).toFixed(0)} |`);
    });
  }
}

async function main(): Promise<void> {
  console.log(
    `boot bench: load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(
        ' ',
      )}, ${RUNS} run(s) per variant, ${REQUESTS} mixed requests, ${ROUNDS} leak rounds, idle ${IDLE_MS / 1000} s, ${os.cpus().length} cores, Node ${process.version}`,
  );
  const results = new Map<string, RunFigures[]>(variantNames.map((name) => [name, []]));
  for (let run = 0; run < RUNS; run += 1) {
    for (const variant of variantNames) {
      const figures = await oneRun(variant);
      results.get(variant)!.push(figures);
      console.log(
        `run ${run + 1} ${variant}: cold ${figures.coldMs.toFixed(0)} ms (CPU ${figures.coldCpuS.toFixed(2)} s), warm ${figures.warmMs.toFixed(0)} ms (CPU ${figures.warmCpuS.toFixed(2)} s, first REST ${figures.warmFirstRestMs.toFixed(0)} ms), idle ${figures.idleMb.toFixed(0)} MB (PSS with the database ${figures.idlePssMb.toFixed(0)} MB, of it postgres ${figures.idleDatabasePssMb.toFixed(0)} MB), after 1k ${figures.mixedMb.toFixed(0)} MB, rounds ${figures.roundsMb.map((mb) => mb.toFixed(0)).join(' ')}`,
      );
    }
  }
  printTable(results);
  console.log(
    `load average at the end: ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  keepAlive.destroy();
}

await main();

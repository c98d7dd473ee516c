// A throwaway PostgreSQL 15 cluster for parity tests and benchmarks: created in a temp dir on a
// free loopback port, with platform + migrations applied, removed again by stop().
// initdb refuses to run as root, so as root the cluster belongs to the `postgres` system user.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { migrateDatabase } from '#db/migrate.ts';
import { installPgtap } from '../testing/test-database.ts';
import { freePort } from '../testing/free-port.ts';

const run = promisify(execFile);

export interface Cluster {
  /** postgres://postgres@127.0.0.1:<port>/studyhall, schema applied. */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Also install pgTAP, as `supabase test db` does before its run (the tests.* helpers come from
   *  the suite's first file). */
  withPgtap?: boolean;
  log?: (line: string) => void;
}

export function postgresBinDir(): string {
  const candidates = [process.env.PG_BINDIR, '/usr/lib/postgresql/15/bin'].filter(Boolean) as string[];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'initdb')));
  if (!found) {
    throw new Error('PostgreSQL 15 server binaries not found (initdb). Run `npm run setup:system`, or set PG_BINDIR.');
  }
  return found;
}

const isRoot = process.getuid?.() === 0;

/** Runs a server binary, as the postgres system user when we are root. */
async function runAsOwner(binary: string, args: string[]): Promise<void> {
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  try {
    await run(file, argv, { maxBuffer: 10 * 1024 * 1024 });
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`${path.basename(binary)} failed: ${failure.stderr || failure.message}`, { cause: error });
  }
}

async function ownerIds(): Promise<{ uid: number; gid: number }> {
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const bin = postgresBinDir();
  const root = await mkdtemp(path.join(os.tmpdir(), 'studyhall-pg-'));
  const dataDir = path.join(root, 'data');
  if (isRoot) {
    const { uid, gid } = await ownerIds();
    await chown(root, uid, gid);
  }
  await chmod(root, 0o700);
  const port = await freePort();
  let started = false;
  const stop = async () => {
    if (started) await runAsOwner(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop']).catch(() => {});
    started = false;
    await rm(root, { recursive: true, force: true });
  };
  try {
    await runAsOwner(path.join(bin, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    const settings = [
      `-p ${port}`,
      `-k ${root}`,
      '-c listen_addresses=127.0.0.1',
      '-c max_connections=200',
      '-c shared_buffers=256MB',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c wal_level=logical',
    ].join(' ');
    await runAsOwner(path.join(bin, 'pg_ctl'), [
      '-D',
      dataDir,
      '-l',
      path.join(root, 'server.log'),
      '-o',
      settings,
      '-w',
      'start',
    ]);
    started = true;
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query('create database studyhall');
    await admin.end();
    const url = `postgres://postgres@127.0.0.1:${port}/studyhall`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrateDatabase(client, options.log);
      if (options.withPgtap) await installPgtap(client);
    } finally {
      await client.end();
    }
    return { url, port, dataDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

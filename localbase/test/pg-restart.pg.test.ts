// Fault: PostgreSQL restarts under a running localbase while writes are in flight. Requests caught
// by the restart may fail (5xx), but the pool recovers on its own: requests after the restart
// succeed without restarting localbase. And no acknowledged write is lost: every insert answered
// 2xx is in the table afterwards. Run for a fast shutdown (backends terminated mid-transaction)
// and an immediate one (the server killed, recovering from its WAL).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '#db/database.ts';
import { startCluster, type Cluster } from '#tools/pg/cluster.ts';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { Localbase } from '../server.ts';
import { managementQuery, signedUpClient } from './clients.ts';

const run = promisify(execFile);

let cluster: Cluster;
let database: Database;
let localbase: Localbase;
let token: string;
let userId: string;

/** pg_ctl against the test cluster, as its owner (the postgres system user when we are root). */
async function pgCtl(args: string[]): Promise<void> {
  const pgCtlPath = path.join(cluster.server.binDir, 'pg_ctl');
  const isRoot = process.getuid?.() === 0;
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', pgCtlPath, ...args]] : [pgCtlPath, args];
  // From the data folder: the checkout may be closed to the postgres user (a clone in a 0700 folder).
  await run(file, argv, { cwd: cluster.server.dataDir });
}

beforeAll(async () => {
  cluster = await startCluster();
  // The throwaway cluster acknowledges commits before their WAL is written (synchronous_commit is
  // off on its command line), which an immediate shutdown loses by design. This test is about
  // localbase, so its sessions keep what they acknowledge, as a production server does: a
  // per-database setting outranks the command line.
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('alter database studyhall set synchronous_commit = on');
  await admin.end();
  database = await openDatabase({ databaseUrl: cluster.url, maxConnections: 10 });
  expect((await database.pool.query('show synchronous_commit')).rows[0]).toEqual({ synchronous_commit: 'on' });
  localbase = await startLocalbaseStack({ database });
  const user = await signedUpClient(localbase, 'restart');
  userId = user.id;
  token = (await user.client.auth.getSession()).data.session?.access_token as string;
});

afterAll(async () => {
  await localbase?.close();
  await database?.close();
  await cluster?.stop();
});

interface WriteOutcome {
  marker: string;
  status: number;
}

async function insertBackup(marker: string): Promise<WriteOutcome> {
  try {
    const response = await fetch(`${localbase.url}/rest/v1/user_backups`, {
      method: 'POST',
      headers: {
        apikey: localbase.anonKey,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        prefer: 'return=minimal',
      },
      body: JSON.stringify({ user_id: userId, source: 'auto', payload: { marker } }),
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
    return { marker, status: response.status };
  } catch {
    // No answer at all: not acknowledged.
    return { marker, status: 0 };
  }
}

async function storedMarkers(): Promise<Set<string>> {
  const response = await managementQuery(
    localbase,
    `select payload->>'marker' as marker from public.user_backups where user_id = '${userId}'`,
  );
  expect(response.status).toBe(201);
  return new Set(((await response.json()) as { marker: string }[]).map((row) => row.marker));
}

/** Writers that keep inserting until told to stop, each write recorded with its answer. */
function startWriters(round: string, count: number) {
  const outcomes: WriteOutcome[] = [];
  let stopped = false;
  let sequence = 0;
  const writers = Array.from({ length: count }, async () => {
    while (!stopped) {
      sequence += 1;
      outcomes.push(await insertBackup(`${round}-${sequence}`));
    }
  });
  return {
    outcomes,
    stop: async () => {
      stopped = true;
      await Promise.all(writers);
    },
  };
}

describe.each([
  ['fast', 'backends terminated mid-transaction'],
  ['immediate', 'the server killed and recovering from its WAL'],
])('PostgreSQL restarted (%s: %s) under localbase with writes in flight', (mode) => {
  it('recovers without a localbase restart and loses no acknowledged write', async () => {
    const writers = startWriters(mode, 6);
    // Let the writers get going, so the restart lands in the middle of transactions.
    while (writers.outcomes.filter((outcome) => outcome.status === 201).length < 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    // -l: without it the new server keeps pg_ctl's output pipes open and pg_ctl never returns. Inside
    // the data folder, the one folder of the cluster its owner (the postgres system user) may write.
    await pgCtl([
      '-D',
      cluster.server.dataDir,
      '-l',
      path.join(cluster.server.dataDir, 'restart.log'),
      '-m',
      mode,
      '-w',
      '-t',
      '60',
      'restart',
    ]);
    // Writes keep going across the restart and for a while after it.
    const afterRestart = writers.outcomes.length;
    while (writers.outcomes.length < afterRestart + 30) await new Promise((resolve) => setTimeout(resolve, 20));
    await writers.stop();

    const acknowledged = writers.outcomes.filter((outcome) => outcome.status >= 200 && outcome.status < 300);
    const refused = writers.outcomes.filter((outcome) => outcome.status < 200 || outcome.status >= 300);
    expect(acknowledged.length).toBeGreaterThan(20);
    const stored = await storedMarkers();
    const lost = acknowledged.filter((outcome) => !stored.has(outcome.marker)).map((outcome) => outcome.marker);
    expect(lost).toEqual([]);
    // The restart did land on requests in flight, and whatever it caught was answered as a
    // server-side failure (503 while the connection is lost), never as a client error.
    expect(refused.length, 'requests the restart caught').toBeGreaterThan(0);
    for (const outcome of refused)
      expect(outcome.status === 0 || outcome.status >= 500, `${outcome.marker}: ${outcome.status}`).toBe(true);

    // Once PostgreSQL is back, every request succeeds: the pool has replaced its dead connections.
    const later = await Promise.all(Array.from({ length: 20 }, (_, index) => insertBackup(`${mode}-after-${index}`)));
    expect(later.map((outcome) => outcome.status)).toEqual(later.map(() => 201));
    const read = await fetch(`${localbase.url}/rest/v1/user_backups?select=id&limit=1`, {
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}` },
    });
    expect(read.status).toBe(200);
    const auth = await fetch(`${localbase.url}/auth/v1/user`, {
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}` },
    });
    expect(auth.status).toBe(200);
  }, 180_000);
});

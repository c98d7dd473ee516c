// attack: race an account deletion with an upload through a URL she signed. On PostgreSQL two
// transactions run at once: the deletion checks for her stored objects (storage_objects_remain)
// while the upload checks that she still exists, and each could miss what the other has not
// committed, leaving an object that names an account that is gone. The object owner trigger locks
// her auth.users row `for key share` while the object is written, so whichever comes second waits
// for the first and then sees it. PostgreSQL only: PGlite runs one transaction at a time.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '#tools/pg/cluster.ts';

let cluster: Cluster;
let pool: pg.Pool;

beforeAll(async () => {
  cluster = await startCluster();
  pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
  // An idle connection the server ends (57P01, its shutdown racing the pool's own end) is an
  // 'error' on the pool; without a listener it would be thrown out of the run.
  pool.on('error', () => undefined);
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
});

async function createAccount(): Promise<string> {
  const id = randomUUID();
  await pool.query('insert into auth.users (id, email) values ($1, $2)', [id, `race-${id}@example.com`]);
  return id;
}

/** What a storage server writes for a signed upload: the row, with the signer as owner. */
const STORE = `insert into storage.objects (bucket_id, name, owner, owner_id) values ('study-material', $1, $2, $3)`;

/** The outcome of a statement: 'done', or the message it failed with. */
const outcome = (pending: Promise<unknown>): Promise<string> =>
  pending.then(
    () => 'done',
    (error: Error) => error.message,
  );

/** Whether a connection's backend is waiting for a row lock, polled for up to two seconds. */
async function waitsForLock(client: pg.PoolClient): Promise<boolean> {
  const pid = (client as unknown as { processID: number }).processID;
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const { rows } = await pool.query(`select 1 from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'`, [
      pid,
    ]);
    if (rows.length > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Leaves no transaction open on either connection (a failed step may have left one). */
async function endBoth(...clients: pg.PoolClient[]): Promise<void> {
  for (const client of clients) {
    await client.query('rollback').catch(() => undefined);
    client.release();
  }
}

async function objectsOf(userId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from storage.objects where owner = $1', [
    userId,
  ]);
  return rows[0]?.n ?? -1;
}

describe('an account deletion racing an upload for her', () => {
  it('a deletion during the upload waits for it, then finds the object and is refused', async () => {
    const id = await createAccount();
    const upload = await pool.connect();
    const deletion = await pool.connect();
    try {
      await upload.query('begin');
      await upload.query(STORE, [`${id}/racing.pdf`, id, id]);
      const deleting = outcome(deletion.query('delete from auth.users where id = $1', [id]));
      const waited = await waitsForLock(deletion);
      await upload.query('commit');
      expect(await deleting).toBe('storage_objects_remain');
      expect(await objectsOf(id)).toBe(1);
      expect(waited).toBe(true);
    } finally {
      await endBoth(upload, deletion);
    }
  });

  it('an upload during the deletion waits for it, then finds no account and writes nothing', async () => {
    const id = await createAccount();
    const upload = await pool.connect();
    const deletion = await pool.connect();
    try {
      await deletion.query('begin');
      await deletion.query('delete from auth.users where id = $1', [id]);
      const storing = outcome(upload.query(STORE, [`${id}/late.pdf`, id, id]));
      const waited = await waitsForLock(upload);
      await deletion.query('commit');
      expect(await storing).toBe('storage_owner_inactive');
      expect(await objectsOf(id)).toBe(0);
      expect(waited).toBe(true);
    } finally {
      await endBoth(upload, deletion);
    }
  });
});

// Periodic database chores a hosted project runs with pg_cron: expire_stale_presence every 30 s.
// The function comes with the community migrations; until it exists there is nothing to do.
import type pg from 'pg';

export const PRESENCE_SWEEP_MS = 30_000;

const FIND_SWEEPER_SQL = `
  select p.oid::regprocedure::text as signature from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  where p.proname = 'expire_stale_presence' and n.nspname in ('public', 'private') and p.pronargs = 0
  order by n.nspname = 'private' desc limit 1`;

/** Runs one sweep as the database owner; answers whether the function existed. */
export async function expireStalePresence(pool: pg.Pool): Promise<boolean> {
  const client = await pool.connect();
  try {
    const found = await client.query<{ signature: string }>(FIND_SWEEPER_SQL);
    const signature = found.rows[0]?.signature;
    if (!signature) return false;
    // The signature is regprocedure output from the catalog: a qualified, quoted name.
    await client.query(`select ${signature.replace(/\(\)$/, '')}()`);
    return true;
  } finally {
    client.release();
  }
}

export function startHousekeeping(pool: pg.Pool, log: (error: unknown) => void): () => void {
  const timer = setInterval(() => {
    expireStalePresence(pool).catch(log);
  }, PRESENCE_SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}

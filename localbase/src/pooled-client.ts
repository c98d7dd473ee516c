// Getting a connection from the pool for a request: a bounded wait (a request that cannot get one
// is answered ConnectionBusyError instead of queueing forever), a listener that keeps a dropped
// connection from crashing the process, and the per-request statement limit PGlite's engine
// enforces while the request holds the client.
import type pg from 'pg';
import { limitStatements } from '#db/database.ts';

/** How long a request waits for a free connection. */
export const ACQUIRE_TIMEOUT_MS = 10_000;

/**
 * Acquires a client for a request: its statements are limited to `timeoutMs` on PGlite's engine (a
 * no-op on PostgreSQL, where the setup's `statement_timeout` does it), until releaseRequestClient
 * lifts the limit for whatever uses the connection next.
 */
export async function acquireRequestClient(pool: pg.Pool, timeoutMs: number | null): Promise<pg.PoolClient> {
  const client = await acquireClient(pool);
  limitStatements(client, timeoutMs);
  return client;
}

export function releaseRequestClient(client: pg.PoolClient, broken: boolean): void {
  limitStatements(client, null);
  client.release(broken);
}

export class ConnectionBusyError extends Error {
  constructor(waitedMs: number) {
    super(`no database connection became free within ${waitedMs} ms`);
  }
}

/** Clients that already carry the listener below (a client is reused across many requests). */
const guardedClients = new WeakSet<pg.PoolClient>();

/**
 * pg's pool listens for errors only on idle clients. A checked-out client whose server goes away
 * (PostgreSQL restarted: 57P01, then EPIPE) emits 'error', which without a listener would crash
 * the process. The failure reaches the request through its query instead, and the client is
 * discarded on release, so the event itself needs no handling beyond being heard.
 */
function guardAgainstConnectionErrors(client: pg.PoolClient): pg.PoolClient {
  if (!guardedClients.has(client)) {
    guardedClients.add(client);
    client.on('error', () => {});
  }
  return client;
}

/** pool.connect() with a deadline; a connection that arrives too late goes straight back. */
export async function acquireClient(
  pool: Pick<pg.Pool, 'connect'>,
  timeoutMs = ACQUIRE_TIMEOUT_MS,
): Promise<pg.PoolClient> {
  const pending = pool.connect().then(guardAgainstConnectionErrors);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ConnectionBusyError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([pending, deadline]);
  } catch (error) {
    pending.then(
      (client) => client.release(),
      () => {},
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

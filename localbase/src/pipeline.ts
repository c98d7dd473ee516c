// Sending several queries on one connection without waiting for each answer: pg's pipeline mode,
// with the socket corked so they leave as one write. How begin, the setup, a statement and commit
// cost one round trip instead of several.
import type pg from 'pg';

/**
 * Sends the given queries back to back (pg 8.23's pipeline mode, `Client#pipeline`) instead of one
 * round trip each: `begin`, the request setup and, for one-statement requests, the statement and
 * `commit` need no answer from each other. The pools are opened elsewhere without pipelining, so it
 * is switched on for these queries only, and off again once all are answered, before anything else
 * is sent on the connection. A one-statement request costs one round trip instead of three.
 */
export async function pipelined<T extends readonly Promise<unknown>[]>(
  client: pg.PoolClient,
  send: () => T,
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const pipelineable = client as unknown as { pipeline?: boolean };
  const previous = pipelineable.pipeline;
  pipelineable.pipeline = true;
  // pg writes each protocol message to the socket as it is queued; corking the socket while the
  // queries are queued makes them one write (one system call, one wake-up of the database).
  const socket = (client as unknown as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } })
    .connection?.stream;
  try {
    socket?.cork?.();
    let pending: T;
    try {
      pending = send();
    } finally {
      socket?.uncork?.();
    }
    // Settle all before leaving pipeline mode: a failed begin must not strand the setup.
    const settled = await Promise.allSettled(pending);
    const failure = settled.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as {
      [K in keyof T]: Awaited<T[K]>;
    };
  } finally {
    pipelineable.pipeline = previous;
  }
}

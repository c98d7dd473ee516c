// The bound on waiting for the database: PGlite cannot interrupt a slow statement, so a request
// that cannot get the one session in time is answered instead of queueing forever.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { acquireClient, ConnectionBusyError } from '../src/pooled-client.ts';

describe('acquireClient', () => {
  it('gives up after the deadline and hands the late connection straight back', async () => {
    let released = false;
    let arrive: (client: pg.PoolClient) => void = () => {};
    const pool = {
      connect: () =>
        new Promise<pg.PoolClient>((resolve) => {
          arrive = resolve;
        }),
    } as unknown as Pick<pg.Pool, 'connect'>;
    await expect(acquireClient(pool, 30)).rejects.toBeInstanceOf(ConnectionBusyError);
    arrive({
      on: () => {},
      release: () => {
        released = true;
      },
    } as unknown as pg.PoolClient);
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toBe(true);
  });

  it('returns a connection that arrives in time', async () => {
    const client = { on: () => {}, release: () => {} } as unknown as pg.PoolClient;
    const pool = { connect: async () => client } as unknown as Pick<pg.Pool, 'connect'>;
    await expect(acquireClient(pool, 1000)).resolves.toBe(client);
  });

  it('listens for errors on the connection it hands out, so a server going away cannot crash the process', async () => {
    const client = Object.assign(new EventEmitter(), { release: () => {} }) as unknown as pg.PoolClient;
    const pool = { connect: async () => client } as unknown as Pick<pg.Pool, 'connect'>;
    const acquired = await acquireClient(pool, 1000);
    // An EventEmitter throws on an 'error' nobody listens to; the process would die of it.
    expect(() =>
      acquired.emit('error', new Error('terminating connection due to administrator command')),
    ).not.toThrow();
    await acquireClient(pool, 1000);
    expect(acquired.listenerCount('error')).toBe(1);
  });
});

// One API request = one transaction on one pooled client, as PostgREST runs it: switch to the
// caller's role, expose the JWT claims and request GUCs (auth.uid() and policies read them), run
// the work, commit or roll back. GET runs read-only. The client is never held across anything that
// waits on another request, because on PGlite the pool has exactly one session.
// This file runs the transactions; what they are made of sits beside it: the request's context
// (request-context.ts), the statements that open it (request-setup.ts), the live-session check
// (session-guard.ts), the timeouts (statement-timeouts.ts), getting a connection (pooled-client.ts)
// and sending queries in one round trip (pipeline.ts).
import type pg from 'pg';
import { pipelined } from './pipeline.ts';
import { acquireClient, acquireRequestClient, releaseRequestClient } from './pooled-client.ts';
import { preparedQuery, trimPrepared } from './prepared-statements.ts';
import type { RequestContext } from './request-context.ts';
import { beginAndSetup } from './request-setup.ts';
import { sessionEndedOr } from './session-guard.ts';
import { requestTimeoutMs, statementTimeoutFor, statementTimeoutSetting } from './statement-timeouts.ts';

// The realtime socket and HTTP broadcast expose a request's headers the same way a request does.
export { exposedHeaders } from './request-context.ts';

export async function withRequestTransaction<T>(
  pool: pg.Pool,
  context: RequestContext,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await acquireRequestClient(pool, requestTimeoutMs(context));
  let broken = false;
  try {
    await trimPrepared(client);
    await pipelined(client, () => beginAndSetup(client, context)).catch(async (error: unknown) => {
      broken = !(await rollBack(client));
      throw sessionEndedOr(error);
    });
    return await commitOrRollback(
      client,
      () => work(client),
      () => (broken = true),
    );
  } finally {
    releaseRequestClient(client, broken);
  }
}

/**
 * One statement as a whole request transaction in a single round trip: begin, setup, the statement
 * (prepared, see prepared-statements.ts) and commit are pipelined. Only for statements whose result
 * needs no further check that could still call for a rollback (a write that must return exactly one
 * row does: use withRequestTransaction for it). If the
 * setup or the statement fails, the transaction is already aborted and the pipelined commit rolls
 * it back, so nothing is written.
 */
export async function runRequestStatement(
  pool: pg.Pool,
  context: RequestContext,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult> {
  const client = await acquireRequestClient(pool, requestTimeoutMs(context));
  let broken = false;
  try {
    await trimPrepared(client);
    const answered = await pipelined(client, () => [
      ...beginAndSetup(client, context),
      client.query(preparedQuery(client, text, values)),
      client.query('commit'),
    ]).catch(async (error: unknown) => {
      // Normally the commit has rolled back already; this covers a failure of begin itself.
      broken = !(await rollBack(client));
      throw sessionEndedOr(error);
    });
    return answered[answered.length - 2] as pg.QueryResult;
  } finally {
    releaseRequestClient(client, broken);
  }
}

/**
 * One read-only statement as the database owner (no role switch: the statement may switch roles
 * itself, as realtime's read check does), in one round trip: begin, the timeout, the statement
 * (prepared) and commit are pipelined as in runRequestStatement. It runs on behalf of signed-in
 * readers, so it gets the `authenticated` timeout, on PostgreSQL and under PGlite's watchdog alike.
 * `read write` is for a statement that undoes its own writes (realtime's channel authorization
 * inserts probe rows inside a block it rolls back).
 */
export async function runOwnerReadStatement(
  pool: pg.Pool,
  text: string,
  values: unknown[],
  access: 'read only' | 'read write' = 'read only',
): Promise<pg.QueryResult> {
  const client = await acquireRequestClient(pool, statementTimeoutFor('authenticated'));
  let broken = false;
  try {
    await trimPrepared(client);
    const [, , result] = await pipelined(
      client,
      () =>
        [
          client.query(`begin ${access}`),
          client.query("select set_config('statement_timeout', $1, true)", [
            statementTimeoutSetting(statementTimeoutFor('authenticated')),
          ]),
          client.query(preparedQuery(client, text, values)),
          client.query('commit'),
        ] as const,
    ).catch(async (error: unknown) => {
      broken = !(await rollBack(client));
      throw error;
    });
    return result;
  } finally {
    releaseRequestClient(client, broken);
  }
}

/**
 * Finishes the open transaction: commit after work, roll back when it throws. A client whose
 * rollback fails is in an unknown state; markBroken lets the caller discard it from the pool.
 */
async function commitOrRollback<T>(client: pg.PoolClient, work: () => Promise<T>, markBroken: () => void): Promise<T> {
  try {
    const result = await work();
    await client.query('commit');
    return result;
  } catch (error) {
    if (!(await rollBack(client))) markBroken();
    throw error;
  }
}

/**
 * Rolls the open transaction back; false when that failed and the connection's state is unknown.
 * A statement whose parameters could not be serialised leaves half a message on the wire, and the
 * server answers the next message (the first rollback) with a protocol error; the second rollback
 * then goes through. That matters on PGlite, whose one session outlives a discarded connection:
 * left aborted, it would fail every later request.
 */
async function rollBack(client: pg.PoolClient): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await client.query('rollback');
      return true;
    } catch {
      // Tried again once, then given up: the caller discards the connection.
    }
  }
  return false;
}

export interface OwnerTransactionOptions {
  /** Runs `begin read only`: for work that only reads. */
  readOnly?: boolean;
}

/** Runs work as the database owner (no role switch) in one transaction: auth, storage bookkeeping. */
export async function withOwnerTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  options: OwnerTransactionOptions = {},
): Promise<T> {
  const client = await acquireClient(pool);
  let broken = false;
  try {
    await client.query(options.readOnly === true ? 'begin read only' : 'begin');
    return await commitOrRollback(
      client,
      () => work(client),
      () => (broken = true),
    );
  } finally {
    client.release(broken);
  }
}

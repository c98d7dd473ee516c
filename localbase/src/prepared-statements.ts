// The Data API's generated statements run as named (prepared) statements, as PostgREST runs its own
// by default (`db-prepared-statements`): a read that an app repeats is parsed and planned once per
// connection instead of on every request. Values are always parameters, so a statement's text
// depends only on the request's shape, and its name is a digest of the text. Each connection keeps
// at most MAX_PREPARED_PER_CONNECTION of them, least recently used out first, so that requests of
// ever new shapes cannot grow a session without bound.
//
// pg remembers which names a connection has parsed (`connection.parsedStatements`) and skips the
// Parse message for those; the bookkeeping here is kept on the same connection object, so it
// follows the session: one per Postgres connection, and PGlite's single session, whose connection
// object every pool client shares.
import { createHash } from 'node:crypto';
import type pg from 'pg';

export const MAX_PREPARED_PER_CONNECTION = 100;

/** The part of pg's connection that tracks named statements (internal to pg). */
interface NamedStatementTracking {
  parsedStatements: Record<string, string>;
}

/** Per connection: the names prepared on it, least recently used first (a Map keeps insertion order). */
const preparedNames = new WeakMap<object, Map<string, true>>();

function trackingOf(
  client: pg.ClientBase,
): { connection: NamedStatementTracking; names: Map<string, true> } | undefined {
  const connection = (client as unknown as { connection?: Partial<NamedStatementTracking> }).connection;
  if (typeof connection?.parsedStatements !== 'object' || connection.parsedStatements === null) return undefined;
  let names = preparedNames.get(connection);
  if (!names) {
    names = new Map();
    preparedNames.set(connection, names);
  }
  return { connection: connection as NamedStatementTracking, names };
}

const PREFIX = 'lb_';

export function preparedName(text: string): string {
  return PREFIX + createHash('sha1').update(text).digest('base64url');
}

/**
 * The query config for `text` as a named statement on this client, marked most recently used.
 * Falls back to an unnamed statement when the client does not track named statements.
 */
export function preparedQuery(client: pg.ClientBase, text: string, values: unknown[]): pg.QueryConfig {
  const tracking = trackingOf(client);
  if (!tracking) return { text, values };
  const name = preparedName(text);
  tracking.names.delete(name);
  tracking.names.set(name, true);
  return { name, text, values };
}

/**
 * Deallocates the least recently used statements beyond the bound. Called on an idle client before
 * a request's work is sent, never inside a transaction, where an aborted state would refuse it.
 * pg forgets a name only once the server has: if DEALLOCATE fails, the statement may still exist,
 * and pg must not send a Parse for that name again (Postgres would refuse it as a duplicate).
 */
export async function trimPrepared(client: pg.ClientBase): Promise<void> {
  const tracking = trackingOf(client);
  if (!tracking || tracking.names.size <= MAX_PREPARED_PER_CONNECTION) return;
  const excess = [...tracking.names.keys()].slice(0, tracking.names.size - MAX_PREPARED_PER_CONNECTION);
  for (const name of excess) {
    tracking.names.delete(name);
    const deallocated = await client.query(`deallocate "${name}"`).then(
      () => true,
      () => false,
    );
    if (deallocated) delete tracking.connection.parsedStatements[name];
  }
}

/**
 * After SQL that localbase did not write ran on the session (the management API's console), any
 * prepared statement may be gone (`DEALLOCATE ALL`, `DISCARD ALL`): deallocate them all and forget
 * them, localbase's own and pg's record of every named statement, so both sides agree again.
 */
export async function forgetAllPrepared(client: pg.ClientBase): Promise<void> {
  await client.query('deallocate all');
  const tracking = trackingOf(client);
  if (!tracking) return;
  tracking.names.clear();
  for (const name of Object.keys(tracking.connection.parsedStatements))
    delete tracking.connection.parsedStatements[name];
}

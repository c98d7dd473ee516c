// The Management API calls the admin console makes, with the local access token (a wrong token
// gets nothing): run SQL as the database owner (`POST /v1/projects/local/database/query`, with
// `parameters` bound to $1..$n as the hosted API binds them), run it read-only
// (`POST .../database/query/read-only`, or `"read_only": true`: see readOnlyRole), and
// read auth's outbox (`GET /v1/projects/local/auth/outbox`, localbase's own: the mail auth kept
// instead of sending it when no SMTP server is configured, newest first).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { installJsonParser, InvalidJsonError, isBodyTooLarge, JSON_BODY_LIMIT_BYTES } from './json-body.ts';
import { listOutbox } from './auth/mail.ts';
import { forgetAllPrepared } from './prepared-statements.ts';
import { acquireClient } from './pooled-client.ts';

export interface ManagementRoutesOptions {
  pool: pg.Pool;
  /** PGlite has one session for everything; a real Postgres connection can simply be dropped. */
  sharedSession: boolean;
  accessToken: string;
  /** Whether auth keeps its mail in the outbox (no SMTP server configured). */
  outbox: boolean;
  /** After a query ran: DDL may have changed what the API exposes or publishes. */
  onSchemaMaybeChanged: () => Promise<void>;
}

export const LOCAL_PROJECT_REF = 'local';

const queryBody = z.object({
  query: z.string().min(1),
  /** Bound to $1..$n. A query with parameters is one statement (the extended protocol's rule). */
  parameters: z.array(z.unknown()).optional(),
  read_only: z.boolean().optional(),
});
type QueryBody = z.infer<typeof queryBody>;

/**
 * The hosted API's read-only queries run as `supabase_read_only_user`, a role that reads every
 * table (pg_read_all_data, bypassing RLS) and owns nothing. localbase creates it when first needed
 * (NOLOGIN: it is only ever switched to), then runs the query as that role in a read-only
 * transaction that is rolled back. The query runs through the extended protocol, so it is one
 * statement: a `commit;` inside it cannot end that transaction and go on as the owner. A write
 * fails with the database's error (25006 in a read-only transaction, 42501 where the role lacks
 * the privilege). This guards against accidents, not against the token's holder, who may run
 * anything on database/query: the connection is the owner's, so one statement (a DO block setting
 * `role`) can switch back to the owner inside the transaction.
 */
const READ_ONLY_ROLE = 'supabase_read_only_user';
const ENSURE_READ_ONLY_ROLE = `do $$
begin
  if not exists (select 1 from pg_roles where rolname = '${READ_ONLY_ROLE}') then
    create role ${READ_ONLY_ROLE} nologin bypassrls;
    grant pg_read_all_data to ${READ_ONLY_ROLE};
  end if;
  if not (select rolsuper from pg_roles where rolname = session_user) then
    execute format('grant ${READ_ONLY_ROLE} to %I', session_user);
  end if;
exception when duplicate_object or unique_violation then
  null;
end
$$`;
const refParams = z.object({ ref: z.string() });
const outboxQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });

function tokenMatches(header: string | undefined, expected: string): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1]);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * Runs console SQL on a connection of its own. SQL files often change session settings (pg_dump
 * output sets search_path to '' and check_function_bodies off), and those must not leak into the
 * API requests that use the connection next: a Postgres connection is dropped afterwards; PGlite's
 * one session gets its role and search path back, and its prepared statements are renewed, since
 * the script may have deallocated them.
 */
async function runAsOwner(
  pool: pg.Pool,
  body: QueryBody,
  readOnly: boolean,
  sharedSession: boolean,
): Promise<unknown[]> {
  const client = await acquireClient(pool);
  const searchPath = sharedSession
    ? (await client.query<{ path: string }>("select current_setting('search_path') as path")).rows[0]?.path
    : undefined;
  try {
    if (readOnly) {
      await client.query(ENSURE_READ_ONLY_ROLE);
      await client.query('begin read only');
      await client.query(`set local role ${READ_ONLY_ROLE}`);
      // pg 8.23 reads queryMode; its types do not list it yet.
      const oneStatement: pg.QueryConfig = Object.assign(
        { text: body.query, values: body.parameters ?? [] },
        { queryMode: 'extended' },
      );
      const result = await client.query(oneStatement);
      await client.query('rollback');
      return result.rows;
    }
    // Without parameters, the simple protocol runs several statements as one implicit
    // transaction; the last result counts. With them, pg binds them to one statement.
    const result = (await client.query(body.query, body.parameters)) as pg.QueryResult | pg.QueryResult[];
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    return last?.rows ?? [];
  } finally {
    if (sharedSession) {
      await client
        .query(
          'rollback; reset session authorization; reset role; reset check_function_bodies; reset statement_timeout',
        )
        .then(() => client.query("select set_config('search_path', $1, false)", [searchPath]))
        .then(() => forgetAllPrepared(client))
        .then(
          () => client.release(),
          (error: Error) => client.release(error),
        );
    } else {
      client.release(true);
    }
  }
}

export async function managementRoutes(app: FastifyInstance, options: ManagementRoutesOptions): Promise<void> {
  installJsonParser(app);
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof InvalidJsonError) return reply.status(400).send({ message: error.message });
    if (isBodyTooLarge(error))
      return reply
        .status(413)
        .send({ message: `request body is larger than the limit of ${JSON_BODY_LIMIT_BYTES} bytes` });
    request.log.error({ err: error }, 'management request failed');
    return reply.status(500).send({ message: 'localbase failed to run the query' });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ message: `localbase does not implement ${request.method} ${request.url.split('?')[0]}` }),
  );

  app.get('/v1/projects/:ref/auth/outbox', async (request, reply) => {
    if (!tokenMatches(request.headers.authorization, options.accessToken)) {
      return reply.status(401).send({ message: 'Unauthorized' });
    }
    const { ref } = refParams.parse(request.params);
    if (ref !== LOCAL_PROJECT_REF)
      return reply.status(404).send({ message: `project ${ref} not found (localbase serves "${LOCAL_PROJECT_REF}")` });
    const query = outboxQuery.safeParse(request.query);
    if (!query.success) return reply.status(400).send({ message: 'limit must be a whole number from 1 to 500' });
    return { smtp: !options.outbox, messages: await listOutbox(options.pool, query.data.limit) };
  });

  const runQuery = (readOnlyRoute: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (!tokenMatches(request.headers.authorization, options.accessToken)) {
      return reply.status(401).send({ message: 'Unauthorized' });
    }
    const { ref } = refParams.parse(request.params);
    if (ref !== LOCAL_PROJECT_REF)
      return reply.status(404).send({ message: `project ${ref} not found (localbase serves "${LOCAL_PROJECT_REF}")` });
    const body = queryBody.safeParse(request.body);
    if (!body.success) {
      return reply
        .status(400)
        .send({ message: 'body must be {"query": "<sql>", "parameters": [<values>], "read_only": <boolean>}' });
    }
    const readOnly = readOnlyRoute || body.data.read_only === true;
    let rows: unknown[];
    try {
      rows = await runAsOwner(options.pool, body.data, readOnly, options.sharedSession);
    } catch (error) {
      return reply.status(400).send({ message: (error as Error).message });
    }
    if (!readOnly) await options.onSchemaMaybeChanged();
    return reply.status(201).send(rows);
  };
  app.post('/v1/projects/:ref/database/query', runQuery(false));
  app.post('/v1/projects/:ref/database/query/read-only', runQuery(true));
}

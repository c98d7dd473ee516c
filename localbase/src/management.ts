// The Management API calls the admin console makes, with the local access token (a wrong token
// gets nothing): run SQL as the database owner (`POST /v1/projects/local/database/query`), and
// read auth's outbox (`GET /v1/projects/local/auth/outbox`, localbase's own: the mail auth kept
// instead of sending it when no SMTP server is configured, newest first).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { installJsonParser, InvalidJsonError, isBodyTooLarge, JSON_BODY_LIMIT_BYTES } from './json-body.ts';
import { listOutbox } from './auth/mail.ts';
import { forgetAllPrepared } from './prepared-statements.ts';
import { acquireClient } from './request-transaction.ts';

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

const queryBody = z.object({ query: z.string().min(1) });
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
async function runAsOwner(pool: pg.Pool, query: string, sharedSession: boolean): Promise<unknown[]> {
  const client = await acquireClient(pool);
  const searchPath = sharedSession
    ? (await client.query<{ path: string }>("select current_setting('search_path') as path")).rows[0]?.path
    : undefined;
  try {
    // The simple protocol runs several statements as one implicit transaction; the last result counts.
    const result = (await client.query(query)) as pg.QueryResult | pg.QueryResult[];
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

  app.post('/v1/projects/:ref/database/query', async (request, reply) => {
    if (!tokenMatches(request.headers.authorization, options.accessToken)) {
      return reply.status(401).send({ message: 'Unauthorized' });
    }
    const { ref } = refParams.parse(request.params);
    if (ref !== LOCAL_PROJECT_REF)
      return reply.status(404).send({ message: `project ${ref} not found (localbase serves "${LOCAL_PROJECT_REF}")` });
    const body = queryBody.safeParse(request.body);
    if (!body.success) return reply.status(400).send({ message: 'body must be {"query": "<sql>"}' });
    let rows: unknown[];
    try {
      rows = await runAsOwner(options.pool, body.data.query, options.sharedSession);
    } catch (error) {
      return reply.status(400).send({ message: (error as Error).message });
    }
    await options.onSchemaMaybeChanged();
    return reply.status(201).send(rows);
  });
}

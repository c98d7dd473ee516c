// The one Management API call the admin console makes: run SQL as the database owner.
// `POST /v1/projects/local/database/query` with the local access token; a wrong token runs nothing.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { installJsonParser, InvalidJsonError, isBodyTooLarge } from './json-body.ts';

export interface ManagementRoutesOptions {
  pool: pg.Pool;
  accessToken: string;
  /** After a query ran: DDL may have changed what the API exposes or publishes. */
  onSchemaMaybeChanged: () => Promise<void>;
}

export const LOCAL_PROJECT_REF = 'local';

const queryBody = z.object({ query: z.string().min(1) });
const refParams = z.object({ ref: z.string() });

function tokenMatches(header: string | undefined, expected: string): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1]);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export async function managementRoutes(app: FastifyInstance, options: ManagementRoutesOptions): Promise<void> {
  installJsonParser(app);
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof InvalidJsonError) return reply.status(400).send({ message: error.message });
    if (isBodyTooLarge(error)) return reply.status(413).send({ message: 'request body too large' });
    request.log.error({ err: error }, 'management request failed');
    return reply.status(500).send({ message: 'localbase failed to run the query' });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ message: `localbase does not implement ${request.method} ${request.url.split('?')[0]}` }),
  );

  app.post('/v1/projects/:ref/database/query', async (request, reply) => {
    if (!tokenMatches(request.headers.authorization, options.accessToken)) {
      return reply.status(401).send({ message: 'Unauthorized' });
    }
    const { ref } = refParams.parse(request.params);
    if (ref !== LOCAL_PROJECT_REF) return reply.status(404).send({ message: `project ${ref} not found (localbase serves "${LOCAL_PROJECT_REF}")` });
    const body = queryBody.safeParse(request.body);
    if (!body.success) return reply.status(400).send({ message: 'body must be {"query": "<sql>"}' });
    let rows: unknown[];
    try {
      // The simple protocol runs several statements as one implicit transaction; the last result counts.
      const result = (await options.pool.query(body.data.query)) as pg.QueryResult | pg.QueryResult[];
      const last = Array.isArray(result) ? result[result.length - 1] : result;
      rows = last?.rows ?? [];
    } catch (error) {
      return reply.status(400).send({ message: (error as Error).message });
    }
    await options.onSchemaMaybeChanged();
    return reply.status(201).send(rows);
  });
}

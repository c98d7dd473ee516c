// /rest/v1: tables, views and functions of the exposed schemas, speaking PostgREST's dialect.
// Each request is one transaction under the caller's role (request-transaction.ts) and, for reads,
// writes and calls alike, one SQL statement: embedded resources are joined inside it, so RLS
// applies to every table it touches as the caller. A planned count adds an EXPLAIN of the count
// query in the same transaction, as PostgREST does. The handlers: table-route.ts (tables and
// views) and rpc-route.ts (functions), over what route-context.ts shares; errors answer here.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MissingApiKeyError } from '../caller.ts';
import { InvalidJsonError, isBodyTooLarge, JSON_BODY_LIMIT_BYTES } from '../json-body.ts';
import { JwtError, type ApiRole } from '../jwt.ts';
import { ConnectionBusyError } from '../pooled-client.ts';
import { SessionEndedError } from '../session-guard.ts';
import {
  badRequest,
  connectionLost,
  fromDatabaseError,
  invalidResourcePath,
  isConnectionLost,
  isDatabaseError,
  openApiDisabled,
  PostgrestError,
} from './errors.ts';
import { installRestBodyParsers } from './payload.ts';
import { requestSchema, restContext, type RestRoutesOptions } from './route-context.ts';
import { rpcRequest } from './rpc-route.ts';
import { tableRequest } from './table-route.ts';

export async function restRoutes(app: FastifyInstance, options: RestRoutesOptions): Promise<void> {
  const rest = restContext(options);
  installRestBodyParsers(app);
  app.decorateRequest('restCallerRole', null);

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    const failure = toPostgrestError(error, request.restCallerRole ?? 'anon');
    if (failure.status >= 500) request.log.error({ err: error }, 'rest request failed');
    if (failure.status === 401) {
      reply.header(
        'www-authenticate',
        `Bearer error="invalid_token", error_description="${failure.message.replace(/"/g, "'")}"`,
      );
    }
    return reply
      .status(failure.status)
      .header('content-type', 'application/json; charset=utf-8')
      .header('proxy-status', `PostgREST; error=${failure.code}`)
      .send(failure.body());
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.status(404).header('content-type', 'application/json; charset=utf-8').send(invalidResourcePath().body()),
  );

  app.all('/:name', (request, reply) => tableRequest(rest, request, reply));
  app.all('/rpc/:name', (request, reply) => rpcRequest(rest, request, reply));
  app.all('/', async (request) => {
    await rest.caller(request);
    requestSchema(request, options.schemas);
    throw openApiDisabled();
  });
}

function toPostgrestError(error: Error & { code?: string; statusCode?: number }, role: ApiRole): PostgrestError {
  if (error instanceof PostgrestError) return error;
  if (error instanceof JwtError) {
    const code = error.reason === 'invalid' ? 'PGRST301' : 'PGRST303';
    return new PostgrestError(401, code, error.message);
  }
  if (error instanceof MissingApiKeyError) {
    return new PostgrestError(
      401,
      'PGRST301',
      error.message,
      null,
      'No `apikey` request header or url param was found.',
    );
  }
  if (error instanceof SessionEndedError) return new PostgrestError(401, 'PGRST303', `JWT rejected: ${error.message}`);
  if (error instanceof InvalidJsonError)
    return new PostgrestError(400, 'PGRST102', 'Empty or invalid json', error.message);
  if (error instanceof ConnectionBusyError) {
    return new PostgrestError(504, 'PGRST003', 'Timed out acquiring connection from connection pool.', error.message);
  }
  if (isBodyTooLarge(error)) {
    return new PostgrestError(
      413,
      'PT413',
      `Request body is larger than the ${JSON_BODY_LIMIT_BYTES} byte limit of localbase`,
    );
  }
  if (error instanceof z.ZodError) return badRequest('invalid request', error.issues[0]?.message ?? null);
  const fastifyStatus = error.statusCode;
  if (isConnectionLost(error)) return connectionLost(error.message);
  if (isDatabaseError(error)) return fromDatabaseError(error, role);
  if (fastifyStatus && fastifyStatus < 500) return new PostgrestError(fastifyStatus, 'PGRST000', String(error));
  return new PostgrestError(500, 'PGRST000', 'localbase failed to answer the request');
}

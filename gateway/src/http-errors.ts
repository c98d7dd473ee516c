// The one JSON error body of DESIGN.md: {"error": "<machine_code>", "message": "<sentence>", ...details}.
// Handlers throw GatewayError; Fastify's own failures (body too large, bad JSON) are mapped here too,
// so no route ever answers with Fastify's default error shape.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ZodError, type z } from 'zod';
import { BackendError } from './backend/backend-client.ts';
import { toGatewayError } from './backend/backend-errors.ts';
import { BODY_LIMITS, describeBytes } from './security/body-limits.ts';

export type ErrorDetails = Record<string, unknown>;

export class GatewayError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export function errorBody(code: string, message: string, details: ErrorDetails = {}): ErrorDetails {
  return { error: code, message, ...details };
}

export function sendError(reply: FastifyReply, status: number, code: string, message: string, details?: ErrorDetails) {
  return reply.code(status).type('application/json; charset=utf-8').send(errorBody(code, message, details));
}

/** 413 naming the limit, the one shape every size refusal has (gateway routes and proxy alike). */
export function sendPayloadTooLarge(reply: FastifyReply, limitBytes: number) {
  return sendError(reply, 413, 'payload_too_large', `The request body is larger than ${describeBytes(limitBytes)}, the most this route accepts.`, {
    limit_bytes: limitBytes,
  });
}

/** Turns a zod failure into one readable sentence per problem ("password: too short"). */
export function describeZodError(error: ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : 'body'}: ${issue.message}`);
}

export function badRequest(error: ZodError): GatewayError {
  const problems = describeZodError(error);
  return new GatewayError(400, 'invalid_request', problems.join('; '), { problems });
}

/** Parses with zod and throws the 400 JSON error on failure: every request edge goes through this. */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(result.error);
  return result.data;
}

const fastifyCodeMap: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', message: 'This route does not accept that content type.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_json', message: 'The JSON body is empty.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json', message: 'The body is not valid JSON.' },
};

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof GatewayError) {
      return sendError(reply, error.statusCode, error.code, error.message, error.details);
    }
    if (error instanceof BackendError) {
      const mapped = toGatewayError(error);
      if (mapped.statusCode >= 500) request.log.warn({ err: error }, 'backend call failed');
      return sendError(reply, mapped.statusCode, mapped.code, mapped.message, mapped.details);
    }
    // Requests are parsed with parseOrThrow (a GatewayError); a bare ZodError comes from checking
    // what the backend answered, so it is the backend's fault, not the caller's.
    if (error instanceof ZodError) {
      request.log.warn({ err: error }, 'backend answered in an unexpected shape');
      return sendError(reply, 502, 'backend_error', 'The backend answered in an unexpected shape.', { problems: describeZodError(error) });
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendPayloadTooLarge(reply, request.routeOptions.bodyLimit ?? BODY_LIMITS.json);
    }
    const known = error.code ? fastifyCodeMap[error.code] : undefined;
    if (known) return sendError(reply, known.status, known.code, known.message);
    if (error instanceof SyntaxError || error.statusCode === 400) {
      return sendError(reply, 400, 'invalid_request', error.message);
    }
    if (error.statusCode === 429) {
      return sendError(reply, 429, 'rate_limited', error.message);
    }
    // Any other client error Fastify raises (unsupported method, header too large, ...) stays a 4xx.
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, error.statusCode, 'invalid_request', error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 500, 'internal_error', 'The server failed to handle this request.');
  });
}

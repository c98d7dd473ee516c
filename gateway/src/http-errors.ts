// The one JSON error body of every gateway route (docs/api.md#errors):
// {"error": "<machine_code>", "message": "<sentence>", ...details}.
// Handlers throw GatewayError; error-handler.ts turns it, a backend failure and Fastify's own
// failures into this body. This module sits below everything that throws or sends an error (the
// backend's error mapping included), so it imports nothing of the gateway but the body limits.
import type { FastifyReply } from 'fastify';
import type { ZodError, z } from 'zod';
import { describeBytes } from './security/body-limits.ts';

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
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(code, message, details));
}

/** 413 naming the limit, the one shape every size refusal has (gateway routes and proxy alike). */
export function sendPayloadTooLarge(reply: FastifyReply, limitBytes: number) {
  return sendError(
    reply,
    413,
    'payload_too_large',
    `The request body is larger than ${describeBytes(limitBytes)}, the most this route accepts.`,
    {
      limit_bytes: limitBytes,
    },
  );
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

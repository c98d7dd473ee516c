// The gateway's one error handler: whatever a route throws, or Fastify itself refuses, leaves as
// the JSON error body of http-errors.ts, so no route ever answers with Fastify's default shape.
// It lives apart from http-errors.ts because it needs the backend's error mapping, which itself
// builds GatewayErrors: keeping the two apart keeps the imports one way.
// Route schemas are zod (route-schemas.ts): requests are checked by the validator compiler below,
// answers serialised through the type provider's, which drops any field a schema does not name.
import type { FastifyError, FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { ZodError, type z } from 'zod';
import { BackendError } from './backend/backend-client.ts';
import { toGatewayError } from './backend/backend-errors.ts';
import { badRequest, describeZodError, GatewayError, sendError, sendPayloadTooLarge } from './http-errors.ts';
import { BODY_LIMITS } from './security/body-limits.ts';

const fastifyCodeMap: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'This route does not accept that content type.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_json', message: 'The JSON body is empty.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json', message: 'The body is not valid JSON.' },
};

/**
 * A request that fails its route's schema (body, query, params) is refused as GatewayError, so it
 * is the same 400 `invalid_request` with one "field: problem" sentence per issue as any other;
 * Fastify keeps an Error the validator returns as it is.
 */
const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    return result.success ? { value: result.data } : { error: badRequest(result.error) };
  };

export function installErrorHandling(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof GatewayError) {
      return sendError(reply, error.statusCode, error.code, error.message, error.details);
    }
    if (error instanceof BackendError) {
      const mapped = toGatewayError(error);
      if (mapped.statusCode >= 500) request.log.warn({ err: error }, 'backend call failed');
      return sendError(reply, mapped.statusCode, mapped.code, mapped.message, mapped.details);
    }
    // Requests fail as GatewayError (the validator above); a bare ZodError comes from checking
    // what the backend answered, so it is the backend's fault, not the caller's.
    if (error instanceof ZodError) {
      request.log.warn({ err: error }, 'backend answered in an unexpected shape');
      return sendError(reply, 502, 'backend_error', 'The backend answered in an unexpected shape.', {
        problems: describeZodError(error),
      });
    }
    // An answer that does not match its own schema is this server's bug: logged, never sent.
    if (error.code === 'FST_ERR_RESPONSE_SERIALIZATION') {
      request.log.error({ err: error, cause: error.cause }, 'an answer did not match its route schema');
      return sendError(reply, 500, 'internal_error', 'The server failed to handle this request.');
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

// The console's plain HTML forms post application/x-www-form-urlencoded; this parser (registered
// only in the admin console's scope) turns them into an object of strings, so every route reads
// JSON and form bodies through the same zod schemas. Repeated names keep their last value.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { GatewayError } from '../http-errors.ts';

export function installFormBodyParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      done(null, Object.fromEntries(new URLSearchParams(text)));
    } catch {
      done(new GatewayError(400, 'invalid_request', 'The form body could not be read.'));
    }
  });
}

/** Whether the post came from a page's form (a browser), not from a script sending JSON. */
export function isFormPost(request: FastifyRequest): boolean {
  return String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
}

/** The refusal of a post that was not confirmed (a box not ticked, a name not typed); the sentence says what was not done. */
export function confirmationRequired(sentence: string): GatewayError {
  return new GatewayError(400, 'confirmation_required', sentence);
}

const FORM_TRUE = ['true', 'on', '1', 'yes'] as const;
const FORM_FALSE = ['false', '0', 'no', ''] as const;

/**
 * A boolean field: JSON true/false, or a form's "true", "on", "1" (a checked box) and "false", "0", "".
 * Written as the union of what it accepts, so the OpenAPI document shows the strings a form sends.
 */
export const formBoolean = z
  .union([z.boolean(), z.enum([...FORM_TRUE, ...FORM_FALSE])], {
    message: 'must be true or false (a ticked box sends "on")',
  })
  .transform((value) => (typeof value === 'boolean' ? value : (FORM_TRUE as readonly string[]).includes(value)));

/** An optional text field where a form's empty string means "not given". */
export function optionalField<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
}

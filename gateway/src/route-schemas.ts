// What every route declares beside its handler (`schema:`), in the few shapes the gateway answers.
// JSON answers are zod schemas serialised through the type provider, so a field a handler adds by
// mistake is dropped; the error body is declared once for every 4xx and 5xx. Answers that are not
// JSON (a page, a stream, a file, a redirect) are declared by their content type, so the OpenAPI
// document names them and the route-contract test can tell "not JSON" from "not declared".
import { z } from 'zod';
import { errorBody } from '#contracts/error-body.ts';

/** The 4xx and 5xx answers of every route: the gateway's error body (http-errors.ts). */
export const ERROR_RESPONSES = { '4xx': errorBody, '5xx': errorBody } as const;

/** An answer declared by content type (not JSON, or JSON and a page). */
export interface ContentAnswer {
  description: string;
  content: Record<string, { schema: z.core.$ZodType }>;
}

/** A route's answers by status, plus the error body for every refusal. */
export function withErrorBody<const T extends Record<number, z.core.$ZodType | ContentAnswer>>(
  answers: T,
): T & typeof ERROR_RESPONSES {
  return { ...answers, ...ERROR_RESPONSES };
}

/** An answer whose body is not JSON: the content type names it, the body is text or bytes. */
export function nonJson(contentType: string, description: string): ContentAnswer {
  return { description, content: { [contentType]: { schema: z.string() } } };
}

/** An HTML page (the admin console, the certificate page). */
export const htmlPage = (description: string) => nonJson('text/html', description);

/** A file sent as it is stored, with the content type of its name. */
export const storedFile = (description: string) => nonJson('*/*', description);

/** An answer without a body: a redirect (the Location header says where) or a 204. */
export const noBody = (description: string) => z.undefined().describe(description);

/** Path parameters of a wildcard route (`/companion/*`): the rest of the path, as sent. */
export const wildcardParams = z.object({ '*': z.string() });

/**
 * The admin console's answer: JSON for scripts, the same facts as a page for a browser
 * (admin/respond.ts decides by the Accept header).
 */
export function jsonOrPage(schema: z.core.$ZodType, description: string): ContentAnswer {
  return { description, content: { 'application/json': { schema }, 'text/html': { schema: z.string() } } };
}

// The answers every admin console route shares, for its `schema:` (route-schemas.ts has the
// gateway-wide shapes). A console route answers JSON to scripts and a page to browsers
// (respond.ts), its errors included (admin-console.ts); a form that worked sends the browser on
// with a 303; a GET without a session sends it to the unlock page. Bodies of posts that read
// nothing are declared as such, so the route-contract test can tell "reads nothing" from
// "not declared".
import { z } from 'zod';
import { errorBody } from '#contracts/error-body.ts';
import { jsonOrPage, noBody, type ContentAnswer } from '../route-schemas.ts';

/** A refusal: the JSON error body, or to a browser a page with the same code and sentence. */
const consoleError = jsonOrPage(
  errorBody,
  'The JSON error body; a browser gets a page with the same code and sentence.',
);

/** A 303 without a body: its Location header says where to. */
export function seeOther(description: string) {
  return noBody(description).meta({
    headers: { location: { type: 'string', description: 'Where the browser goes next.' } },
  });
}

/** A console route's answers by status, plus its refusals (JSON, or a page to a browser). */
export function consoleAnswers<const T extends Record<number, z.core.$ZodType | ContentAnswer>>(answers: T) {
  return { ...answers, '4xx': consoleError, '5xx': consoleError } as const;
}

/**
 * A page of the console (GET): its answers, plus the 303 to the unlock page that a browser without
 * a session gets (a script gets 401 `admin_login_required`).
 */
export function pageAnswers<const T extends Record<number, z.core.$ZodType | ContentAnswer>>(answers: T) {
  return consoleAnswers({
    303: seeOther('To /__admin/login?next=<this page>, for a browser without a console session.'),
    ...answers,
  });
}

/** The body of a post that reads nothing from it (a button's form, or no body at all). */
export const unreadBody = z.unknown().describe('Not read: the post itself is the request.');

/**
 * The fields of a form post, as JSON or as the console's own form sends them
 * (application/x-www-form-urlencoded: every value a string, form-body.ts). A post without a body
 * reads as one without fields, so each missing field is named, as for an empty form.
 */
export function formFields<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => value ?? {}, schema);
}

/** What a console post takes: JSON from scripts, or a page's form (the scope's parser, form-body.ts). */
export const FORM_OR_JSON = ['application/json', 'application/x-www-form-urlencoded'];

/** The `schema:` of a console post: JSON or a form in; `answer` as JSON, or a page to a browser. */
export function formPostSchema<B extends z.ZodType, A extends z.ZodType>(body: B, answer: A, description: string) {
  return { consumes: FORM_OR_JSON, body, response: consoleAnswers({ 200: jsonOrPage(answer, description) }) };
}

// What a request transaction needs to know about its request: the caller's role and claims, the
// method, path, headers and cookies PostgREST exposes as `request.*` settings, and how the
// transaction starts (read-only, isolation, a called function's hoisted settings, the pre-request
// function). Built once per HTTP request from its verified token, then read by the setup.
import type { ApiRole, Claims, VerifiedToken } from './jwt.ts';

export interface RequestContext {
  role: ApiRole;
  claims: Claims;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The Cookie header's pairs, as PostgREST exposes them in `request.cookies`. */
  cookies?: Record<string, string> | undefined;
  readOnly: boolean;
  /**
   * PostgREST's db-pre-request: the function (an SQL name, already quoted) called after the setup
   * and before the statement. Its exception is the request's error; what it sets in
   * response.headers / response.status the statement reads back as the function's own.
   */
  preRequest?: string | undefined;
  /** Settings a called function carries that PostgREST hoists (db-hoisted-tx-settings), set transaction-locally. */
  settings?: readonly (readonly [string, string])[] | undefined;
  /** A called function's own default_transaction_isolation, which PostgREST starts the transaction with. */
  isolation?: IsolationLevel | undefined;
}

export const ISOLATION_LEVELS = ['serializable', 'repeatable read', 'read committed', 'read uncommitted'] as const;
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number];

/** The context of an HTTP request made with a verified token; GET and HEAD run read-only. */
export function httpRequestContext(
  request: { method: string; url: string; headers: Record<string, string | string[] | undefined> },
  verified: VerifiedToken,
): RequestContext {
  return {
    role: verified.role,
    claims: verified.claims,
    method: request.method,
    path: request.url.split('?')[0] ?? '/',
    headers: exposedHeaders(request.headers),
    cookies: requestCookies(request.headers.cookie),
    readOnly: request.method === 'GET' || request.method === 'HEAD',
  };
}

/**
 * Lower-cased request headers as PostgREST exposes them in `request.headers`: all of them but the
 * Cookie header, whose pairs are `request.cookies` instead.
 */
export function exposedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const exposed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.toLowerCase() === 'cookie') continue;
    exposed[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return exposed;
}

/**
 * The Cookie header as PostgREST reads it into `request.cookies`: pairs split at `;`, leading blanks
 * dropped, name and value split at the first `=` (no `=`: an empty value), values kept as sent (no
 * unquoting or decoding); of a name sent twice the last counts.
 */
export function requestCookies(header: string | string[] | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '');
  for (const part of text.split(';')) {
    const pair = part.trimStart();
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const [name, value] = equals < 0 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
    Object.defineProperty(cookies, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return cookies;
}

// The API-key gate in front of rest, auth, storage and the realtime socket, as Supabase's API
// gateway keeps it: every request names one of the project's keys in the `apikey` header (or the
// `apikey` URL parameter, which realtime-js uses), or it is refused with 401 before any API sees
// it. A valid user token in Authorization does not stand in for the key. The check runs in an
// encapsulated Fastify scope around each API family, so it holds for every route of the family
// whatever the spelling of the URL, and only the routes Supabase leaves open skip it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ProjectApiKeys {
  anonKey: string;
  serviceRoleKey: string;
}

/** The gateway's bodies, word for word (both carry a hint). */
export const NO_API_KEY_BODY = {
  message: 'No API key found in request',
  hint: 'No `apikey` request header or url param was found.',
} as const;
export const INVALID_API_KEY_BODY = {
  message: 'Invalid API key',
  hint: 'Double check your Supabase `anon` or `service_role` API key.',
} as const;

export type ApiKeyVerdict = 'valid' | 'missing' | 'invalid';

/** The key a request presents: the `apikey` header first, else the `apikey` URL parameter. */
export function presentedApiKey(request: Pick<FastifyRequest, 'headers' | 'url'>): string | undefined {
  const header = request.headers.apikey;
  if (typeof header === 'string' && header !== '') return header;
  if (Array.isArray(header) && header[0]) return header[0];
  const mark = request.url.indexOf('?');
  if (mark < 0) return undefined;
  const fromQuery = new URLSearchParams(request.url.slice(mark + 1)).get('apikey');
  return fromQuery === null || fromQuery === '' ? undefined : fromQuery;
}

export function judgeApiKey(keys: ProjectApiKeys, presented: string | undefined): ApiKeyVerdict {
  if (presented === undefined) return 'missing';
  return presented === keys.anonKey || presented === keys.serviceRoleKey ? 'valid' : 'invalid';
}

export interface ApiKeyGateOptions {
  keys: ProjectApiKeys;
  /**
   * Route patterns (as registered, e.g. `/storage/v1/object/public/:bucket/*`) that Supabase serves
   * without a key. Matched on the route Fastify chose, never on the raw URL.
   */
  openRoutes?: readonly string[];
}

/**
 * Adds the gate to a scope: an onRequest hook, so a refused request never reaches a handler, a
 * body parser or a WebSocket upgrade. A key given only as a URL parameter is copied into the
 * `apikey` header, so the API behind sees it where it looks for it.
 */
export function installApiKeyGate(scope: FastifyInstance, options: ApiKeyGateOptions): void {
  const open = new Set(options.openRoutes ?? []);
  scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url;
    if (route !== undefined && open.has(route)) return;
    const presented = presentedApiKey(request);
    const verdict = judgeApiKey(options.keys, presented);
    if (verdict === 'valid') {
      if (request.headers.apikey === undefined && presented !== undefined) request.headers.apikey = presented;
      return;
    }
    return reply
      .status(401)
      .header('content-type', 'application/json; charset=utf-8')
      .send(verdict === 'missing' ? NO_API_KEY_BODY : INVALID_API_KEY_BODY);
  });
}

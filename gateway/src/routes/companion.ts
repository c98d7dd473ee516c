// The phone remote at /companion/: the built PWA from companion/ui/dist (index, manifest, icons,
// its own service worker whose scope is /companion/, the Android overlay page). Hashed assets are
// cached for a year; the page, the worker and the manifest are revalidated on every load, so a new
// build reaches phones at once. Paths are resolved by the app shell's guarded resolver.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../http-errors.ts';
import { nonJson, noBody, storedFile, wildcardParams, withErrorBody } from '../route-schemas.ts';
import { companionPolicyDirectives, setContentSecurityPolicy } from '../security/security-headers.ts';
import { resolveStaticFile } from './app-shell.ts';

export interface CompanionRouteOptions {
  /** companion/ui/dist of the checkout being served. */
  distDir: string;
}

export const COMPANION_PREFIX = '/companion';

function cacheControlFor(file: string): string {
  if (file.startsWith(`assets${path.sep}`)) return 'public, max-age=31536000, immutable';
  if (/\.(html|js|webmanifest)$/.test(file)) return 'no-cache';
  return 'public, max-age=3600';
}

const companionRoute: FastifyPluginAsync<CompanionRouteOptions> = async (app, { distDir }) => {
  await app.register(fastifyStatic, { root: distDir, serve: false, index: false });

  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    sendError(reply, 404, 'not_found', 'No route answers this path.', {
      path: request.url.split('?')[0] ?? request.url,
    });

  // Relative asset paths need the trailing slash: /companion -> /companion/ (keeping any query).
  const redirectSchema = { response: withErrorBody({ 301: noBody('To /companion/, keeping the query.') }) };
  app.get(COMPANION_PREFIX, { schema: redirectSchema }, async (request, reply) => {
    const query = request.url.slice(COMPANION_PREFIX.length);
    return reply.redirect(`${COMPANION_PREFIX}/${query}`, 301);
  });

  const fileSchema = {
    params: wildcardParams,
    response: withErrorBody({
      200: storedFile('A file of the built phone remote (companion/ui/dist).'),
      503: nonJson('text/plain', 'The phone remote is not built yet.'),
    }),
  };
  app.get(`${COMPANION_PREFIX}/*`, { schema: fileSchema }, async (request, reply) => {
    let realDistDir: string;
    try {
      realDistDir = await realpath(distDir);
    } catch {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          'The phone remote is not built yet. It is built when `npm start` starts; or run `npm run build:companion`.',
        );
    }
    const pathname = (request.url.split('?')[0] ?? '').slice(COMPANION_PREFIX.length) || '/';
    const resolved = await resolveStaticFile(realDistDir, pathname);
    if (resolved.kind !== 'file' || path.basename(resolved.relative).startsWith('.')) return notFound(request, reply);
    reply.header('cache-control', cacheControlFor(resolved.relative));
    // The page and its service worker run under this policy (the default one allows nothing).
    setContentSecurityPolicy(reply, companionPolicyDirectives());
    return reply.sendFile(resolved.relative, realDistDir, { cacheControl: false });
  });
};

export default companionRoute;

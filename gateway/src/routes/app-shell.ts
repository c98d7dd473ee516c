// The web app from web/dist with an SPA fallback, and the fences: unknown paths under /api/* and
// /__ai* (and any other unknown /__ path, the gateway's own namespace) are a JSON 404, never the app.
// The fences decide on the decided path (security/request-path.ts), so `/%61pi/x`, `/API/x`,
// `//api/x` and `/x/../api/x` are fenced like `/api/x`. Static files are resolved by hand before
// @fastify/static sends them, so that `..`, encoded slashes and symlinks pointing outside web/dist
// can never serve a file from elsewhere. Everything served here carries the app's CSP.
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../http-errors.ts';
import { nonJson, storedFile, wildcardParams, withErrorBody } from '../route-schemas.ts';
import { decideUrl } from '../security/request-path.ts';
import { setContentSecurityPolicy, type PolicyDirectives } from '../security/security-headers.ts';

export interface AppShellOptions {
  distDir: string;
  appPolicy: PolicyDirectives;
}

/** /api, /api/..., /__ai, /__aianything, /__ai/x, and every other /__ path nobody registered (decided paths). */
export function isFencedPath(decidedPath: string): boolean {
  return /^\/api(\/|$)/.test(decidedPath) || decidedPath.startsWith('/__');
}

function notFound(request: FastifyRequest, reply: FastifyReply) {
  const pathname = request.url.split('?')[0] ?? request.url;
  return sendError(reply, 404, 'not_found', 'No route answers this path.', { path: pathname });
}

type Resolved = { kind: 'file'; relative: string } | { kind: 'missing' } | { kind: 'refused' };

/** Maps a URL path to a file inside distDir, refusing anything that could leave it. */
export async function resolveStaticFile(realDistDir: string, rawPathname: string): Promise<Resolved> {
  if (/%2f|%5c|%00/i.test(rawPathname)) return { kind: 'refused' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPathname);
  } catch {
    return { kind: 'refused' };
  }
  const segments = decoded.split('/').filter(Boolean);
  if (segments.some((segment) => segment === '..' || segment === '.' || segment.includes('\\')))
    return { kind: 'refused' };
  const candidate = path.join(realDistDir, ...segments);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return { kind: 'missing' };
  }
  if (real !== realDistDir && !real.startsWith(realDistDir + path.sep)) return { kind: 'refused' };
  const info = await stat(real);
  if (info.isDirectory()) {
    return resolveStaticFile(realDistDir, `${rawPathname.replace(/\/$/, '')}/index.html`);
  }
  return info.isFile() ? { kind: 'file', relative: path.relative(realDistDir, real) } : { kind: 'missing' };
}

/**
 * Without web/dist the gateway still starts (its API and the phone remote work) and every page
 * says how to build the app, rather than the boot failing on a missing folder.
 */
function serveNotBuilt(app: FastifyInstance) {
  const schema = {
    params: wildcardParams,
    response: withErrorBody({ 503: nonJson('text/plain', 'The web app is not built yet.') }),
  };
  app.get('/*', { schema }, async (request, reply) => {
    if (isFencedPath(decideUrl(request.url).path)) return notFound(request, reply);
    return reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send('The web app is not built yet. `npm start` builds it before it starts; or run `npm run build:web`.');
  });
  app.setNotFoundHandler((request, reply) => notFound(request, reply));
}

const appShell: FastifyPluginAsync<AppShellOptions> = async (app, options) => {
  const realDistDir = await realpath(options.distDir).catch(() => undefined);
  if (realDistDir === undefined) return serveNotBuilt(app);
  await app.register(fastifyStatic, { root: realDistDir, serve: false, index: false });

  const sendIndex = (reply: FastifyReply) =>
    setContentSecurityPolicy(reply, options.appPolicy)
      .header('cache-control', 'no-cache')
      .sendFile('index.html', { cacheControl: false });

  const schema = {
    params: wildcardParams,
    response: withErrorBody({
      200: storedFile('A file of web/dist, or the app page (index.html) for any other path outside the fences.'),
    }),
  };
  app.get('/*', { schema }, async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    if (isFencedPath(decideUrl(request.url).path)) return notFound(request, reply);
    const resolved = await resolveStaticFile(realDistDir, pathname);
    if (resolved.kind === 'refused') return notFound(request, reply);
    if (resolved.kind === 'file') {
      // Build bookkeeping (the freshness stamp, Vite's manifest) is for the server, not for browsers.
      if (resolved.relative.split(path.sep).some((segment) => segment.startsWith('.'))) return notFound(request, reply);
      if (resolved.relative === 'index.html') return sendIndex(reply);
      return setContentSecurityPolicy(reply, options.appPolicy).sendFile(resolved.relative);
    }
    // A missing asset (it has an extension) is a 404; any other path is a client-side route.
    if (path.extname(pathname) !== '') return notFound(request, reply);
    return sendIndex(reply);
  });

  app.setNotFoundHandler((request, reply) => notFound(request, reply));
};

export default appShell;

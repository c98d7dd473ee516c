// Checks of this server's own routes, asked in-process (inject: the full request path with every
// hook, no socket): the edge functions the proxy must refuse with 502, and the local endpoints a
// student's browser and phone rely on, with the /api/* and /__ai* fences.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { check, type Check } from './checks.ts';

const UPDATE = {
  text: "This is the server's own code: update studyhall or restore the checkout (git status).",
  href: null,
  bundle: null,
};

/** The edge functions the local proxy answers itself with 502 (the database functions replace them; no data is invented). */
export const INTERCEPTED_EDGE_FUNCTIONS = ['leaderboard', 'analytics', 'finish-session'];

type Injected = Awaited<ReturnType<FastifyInstance['inject']>>;

function jsonOf(response: Injected): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = response.json();
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const isJson = (response: Injected) => String(response.headers['content-type'] ?? '').startsWith('application/json');

export async function edgeInterceptorChecks(app: FastifyInstance): Promise<Check[]> {
  const checks: Check[] = [];
  for (const name of INTERCEPTED_EDGE_FUNCTIONS) {
    const url = `/__backend/functions/v1/${name}`;
    const response = await app.inject({ method: 'POST', url, payload: {} });
    const ok = response.statusCode === 502 && isJson(response);
    checks.push(
      check(
        'edge_interceptors',
        `POST ${url} answers 502`,
        ok,
        ok
          ? `502 ${String(jsonOf(response)?.error ?? '')}: never forwarded, never invented.`
          : `Answered ${response.statusCode} ${String(response.headers['content-type'] ?? '')}.`,
        UPDATE,
      ),
    );
  }
  return checks;
}

export async function localEndpointChecks(app: FastifyInstance): Promise<Check[]> {
  const checks: Check[] = [];

  const health = await app.inject({ url: '/api/health' });
  const healthBody = jsonOf(health) as { backend?: { status?: string; error?: string | null } } | undefined;
  const backendUp = healthBody?.backend?.status === 'up';
  checks.push(
    check(
      'local_endpoints',
      'GET /api/health reports this server and the backend up',
      health.statusCode === 200 && backendUp,
      health.statusCode === 200
        ? `Backend ${healthBody?.backend?.status ?? 'unknown'}${healthBody?.backend?.error ? ` (${healthBody.backend.error})` : ''}.`
        : `Answered ${health.statusCode}.`,
      { text: 'Check that the backend is running and BACKEND_URL points at it.', href: null, bundle: null },
    ),
  );

  const database = (healthBody as { database?: { engine?: string; notice?: string | null; legacy_pglite?: boolean } })
    ?.database;
  if (database) {
    // PGlite kept for a DATA_DIR from before PostgreSQL was the engine: one student's long
    // statement holds every other student until it ends.
    checks.push(
      check(
        'local_endpoints',
        'The database runs on the embedded PostgreSQL, not on PGlite kept for older data',
        database.legacy_pglite !== true,
        `${database.engine ?? 'unknown engine'}${database.notice ? `: ${database.notice}` : '.'}`,
        {
          text: 'Stop the server, run `npm run db:move-to-postgres` (it copies and checks every table), then start it again.',
          href: null,
          bundle: null,
        },
      ),
    );
  }

  const version = await app.inject({ url: '/api/version' });
  const versionBody = jsonOf(version) as { version?: string; git_sha?: string | null; pwa_cache?: string } | undefined;
  const versionOk =
    version.statusCode === 200 && typeof versionBody?.version === 'string' && typeof versionBody.pwa_cache === 'string';
  checks.push(
    check(
      'local_endpoints',
      'GET /api/version names the version, commit and cache',
      versionOk,
      versionOk
        ? `${versionBody?.version} at ${versionBody?.git_sha?.slice(0, 12) ?? 'no commit'}, cache ${versionBody?.pwa_cache}.`
        : `Answered ${version.statusCode}.`,
      UPDATE,
    ),
  );

  const ping = await app.inject({ url: '/__app/ping' });
  checks.push(
    check(
      'local_endpoints',
      'GET /__app/ping answers',
      ping.statusCode === 200 && jsonOf(ping)?.ok === true,
      `Answered ${ping.statusCode}.`,
      UPDATE,
    ),
  );

  const worker = await app.inject({ url: '/sw.js' });
  const leftovers = [...new Set(worker.body.match(/__[A-Z][A-Z_]*__/g) ?? [])];
  const cacheNamed = versionBody?.pwa_cache ? worker.body.includes(versionBody.pwa_cache) : false;
  const workerOk =
    worker.statusCode === 200 &&
    /javascript/.test(String(worker.headers['content-type'])) &&
    leftovers.length === 0 &&
    cacheNamed;
  checks.push(
    check(
      'local_endpoints',
      'GET /sw.js has every build placeholder substituted',
      workerOk,
      worker.statusCode !== 200
        ? `Answered ${worker.statusCode}.`
        : leftovers.length
          ? `Still contains ${leftovers.join(', ')}.`
          : cacheNamed
            ? `Cache ${versionBody?.pwa_cache}; no placeholder left.`
            : 'It does not name the cache /api/version reports.',
      UPDATE,
    ),
  );

  const probe = randomBytes(4).toString('hex');
  for (const path of [`/api/verify-${probe}`, '/__ai', `/__ai-${probe}/x`]) {
    const response = await app.inject({ url: path, headers: { accept: 'text/html' } });
    const fenced = response.statusCode === 404 && isJson(response);
    checks.push(
      check(
        'local_endpoints',
        `GET ${path.replace(probe, '<random>')} is a JSON 404, never the app`,
        fenced,
        fenced
          ? '404 application/json.'
          : `Answered ${response.statusCode} ${String(response.headers['content-type'] ?? '')}.`,
        UPDATE,
      ),
    );
  }
  return checks;
}

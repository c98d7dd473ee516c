// GET /sw.js: the service-worker template with its build placeholders substituted on each request,
// so the cache name follows the checked-out commit without a rebuild and the precache list follows
// the build in web/dist (its hashed files, from Vite's build manifest). Never cached by the browser.
import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsync } from 'fastify';
import { withErrorBody, nonJson } from '../route-schemas.ts';
import { readBuildInfo, type BuildInfo } from '../build-info.ts';
import { setContentSecurityPolicy, type PolicyDirectives } from '../security/security-headers.ts';
import { precacheFiles, webPaths } from '../web-dist.ts';

export interface ServiceWorkerOptions {
  repoDir: string;
  templateFile: string;
  /** The worker runs under the policy its script is served with: the app's (it fetches and caches the app). */
  appPolicy: PolicyDirectives;
}

/** `__PRECACHE_FILES__` is replaced by a JSON array literal of URL paths (["/assets/x.js", ...]). */
export function renderServiceWorker(
  template: string,
  info: BuildInfo,
  builtAt: string,
  precache: string[] = [],
): string {
  const values: Record<string, string> = {
    __APP_VERSION__: info.version,
    __GIT_SHA__: info.git_sha ?? 'unknown',
    __PWA_CACHE__: info.pwa_cache,
    __BUILD_TIME__: builtAt,
    __PRECACHE_FILES__: JSON.stringify(precache),
  };
  return template.replace(
    /__(APP_VERSION|GIT_SHA|PWA_CACHE|BUILD_TIME|PRECACHE_FILES)__/g,
    (placeholder) => values[placeholder] ?? placeholder,
  );
}

const serviceWorker: FastifyPluginAsync<ServiceWorkerOptions> = async (app, options) => {
  const schema = {
    response: withErrorBody({ 200: nonJson('application/javascript', 'The service worker script.') }),
  };
  app.get('/sw.js', { schema }, async (_request, reply) => {
    const [template, info, precache] = await Promise.all([
      readFile(options.templateFile, 'utf8'),
      readBuildInfo(options.repoDir),
      precacheFiles(webPaths(options.repoDir).distDir),
    ]);
    setContentSecurityPolicy(reply, options.appPolicy);
    return reply
      .header('cache-control', 'no-cache')
      .header('service-worker-allowed', '/')
      .type('application/javascript; charset=utf-8')
      .send(renderServiceWorker(template, info, new Date().toISOString(), precache));
  });
};

export default serviceWorker;

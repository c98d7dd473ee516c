// GET /sw.js: the service-worker template with its build placeholders substituted on each request,
// so the cache name follows the checked-out commit without a rebuild. Never cached by the browser.
import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsync } from 'fastify';
import { readBuildInfo, type BuildInfo } from '../build-info.ts';
import { setContentSecurityPolicy, type PolicyDirectives } from '../security/security-headers.ts';

export interface ServiceWorkerOptions {
  repoDir: string;
  templateFile: string;
  /** The worker runs under the policy its script is served with: the app's (it fetches and caches the app). */
  appPolicy: PolicyDirectives;
}

export function renderServiceWorker(template: string, info: BuildInfo, builtAt: string): string {
  const values: Record<string, string> = {
    __APP_VERSION__: info.version,
    __GIT_SHA__: info.git_sha ?? 'unknown',
    __PWA_CACHE__: info.pwa_cache,
    __BUILD_TIME__: builtAt,
  };
  return template.replace(/__(APP_VERSION|GIT_SHA|PWA_CACHE|BUILD_TIME)__/g, (placeholder) => values[placeholder] ?? placeholder);
}

const serviceWorker: FastifyPluginAsync<ServiceWorkerOptions> = async (app, options) => {
  app.get('/sw.js', async (_request, reply) => {
    const [template, info] = await Promise.all([readFile(options.templateFile, 'utf8'), readBuildInfo(options.repoDir)]);
    setContentSecurityPolicy(reply, options.appPolicy);
    return reply
      .header('cache-control', 'no-cache')
      .header('service-worker-allowed', '/')
      .type('application/javascript; charset=utf-8')
      .send(renderServiceWorker(template, info, new Date().toISOString()));
  });
};

export default serviceWorker;

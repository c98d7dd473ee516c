// Shared fixtures of the admin console tests: every admin route the gateway registered (read from
// Fastify's own route tree, so a route added later is covered without editing a list), signing in,
// and pulling the nonce'd scripts out of a page.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export interface RegisteredRoute {
  method: string;
  path: string;
}

/** Every (method, path) under /__admin, from `printRoutes`' tree (4 characters per level). */
export function adminRoutes(app: FastifyInstance): RegisteredRoute[] {
  const stack: string[] = [];
  const routes: RegisteredRoute[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const path = stack.join('');
    if (!path.startsWith('/__admin')) continue;
    for (const method of (match[3] ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)) {
      if (method === 'HEAD' || method === 'QUERY' || method === 'TRACE') continue;
      routes.push({ method, path: path.replace(/:file/, 'community-patch-v6.sql').replace(/\*$/, 'no-such-page') });
    }
  }
  return routes;
}

/** Signs in with the secret and returns the Cookie header for the session. */
export async function signInWithSecret(app: FastifyInstance, secret: string): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/__admin/login', payload: { secret } });
  expect(response.statusCode, response.body).toBe(200);
  const cookie = response.cookies.find((item) => item.name === 'app_admin');
  expect(cookie).toBeDefined();
  return `app_admin=${encodeURIComponent(cookie?.value ?? '')}`;
}

/** The response's CSP nonce, and every <script>/<style> opening tag of the page. */
export function inlineElements(page: string): { tags: string[] } {
  return { tags: page.match(/<(script|style)\b[^>]*>/g) ?? [] };
}

export function nonceOf(csp: string | string[] | number | undefined): string | undefined {
  return /'nonce-([^']+)'/.exec(String(csp ?? ''))?.[1];
}

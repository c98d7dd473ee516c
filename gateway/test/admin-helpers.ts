// Shared fixtures of the admin console tests: a gateway with admin mode on in front of a
// localbase, accounts signed up through it, every admin route the gateway registered (read from
// Fastify's own route tree, so a route added later is covered without editing a list), signing in,
// and pulling the nonce'd scripts out of a page.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Localbase } from '#localbase';
import type { GatewayConfig } from '../src/config.ts';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from './helpers.ts';

type TestGatewayOptions = NonNullable<Parameters<typeof startTestGateway>[0]>;

/**
 * A gateway in front of this localbase with admin mode on (ADMIN_SECRET `secret`, ADMIN_EMAILS
 * `emails`), a credential budget no test spends and deadlines a busy machine's password hashing
 * does not reach; `options` adds to or replaces the rest.
 */
export function startAdminGateway(
  localbase: Localbase,
  admin: { secret: string | undefined; emails?: string[] },
  options: Omit<TestGatewayOptions, 'config'> & { config?: Partial<GatewayConfig> } = {},
): Promise<TestGateway> {
  return startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
    ...RELAXED_DEADLINES,
    ...options,
    config: { ...options.config, admin: { enabled: true, secret: admin.secret, emails: admin.emails ?? [] } },
  });
}

export interface SignedUp {
  email: string;
  token: string;
  userId: string;
}

/** Signs an account up through the gateway's /__auth/signup, as the app does. */
export async function signUp(app: FastifyInstance, email: string, password = `${email}-password`): Promise<SignedUp> {
  const response = await app.inject({ method: 'POST', url: '/__auth/signup', payload: { username: email, password } });
  expect(response.statusCode, response.body).toBe(201);
  return { email, token: response.json().session.access_token, userId: response.json().user.id };
}

/** POST /__admin/login with a backend session's access token. */
export function unlockWithToken(app: FastifyInstance, accessToken: string) {
  return app.inject({ method: 'POST', url: '/__admin/login', payload: { access_token: accessToken } });
}

/** The Cookie header for the admin session a login answer set. */
export function adminCookieOf(response: { cookies: { name: string; value: string }[] }): string {
  return `app_admin=${encodeURIComponent(response.cookies.find((item) => item.name === 'app_admin')?.value ?? '')}`;
}

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

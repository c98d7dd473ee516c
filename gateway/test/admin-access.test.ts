// Who reaches the admin console, with no backend behind it (the refusals happen before any backend
// call): every /__admin/* route is refused while admin mode is not ready and without a valid
// cookie; forged, expired and wrong-key cookies are refused; state-changing requests from another
// site are refused; the secret unlocks with the cookie's attributes (Path=/, HttpOnly, SameSite=Strict, 12 h); unlock attempts
// share the credential rate limit; pages carry their own nonce'd policy. Also the html helper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_COOKIE, ADMIN_COOKIE_MAX_AGE_S, signAdminCookie } from '../src/admin/admin-cookie.ts';
import { managementTarget } from '../src/admin/admin-settings.ts';
import { loadConfig } from '../src/config.ts';
import { escapeHtml, html, jsonForScript, raw } from '../src/admin/html.ts';
import { adminRoutes, inlineElements, nonceOf, signInWithSecret } from './admin-helpers.ts';
import { startTestGateway, testConfig, type TestGateway } from './helpers.ts';

const SECRET = 'an-admin-secret-for-these-tests';
const ORIGIN = 'http://studyhall.test:3000';
const HOST = 'studyhall.test:3000';

let ready: TestGateway;

beforeAll(async () => {
  ready = await startTestGateway({
    config: { admin: { enabled: true, secret: SECRET, emails: [] } },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
  });
});

afterAll(async () => {
  await ready?.close();
});

const cookieHeader = (value: string) => `${ADMIN_COOKIE}=${encodeURIComponent(value)}`;

describe('the html helper', () => {
  it('escapes every interpolated value and keeps raw() and nested html as they are', () => {
    const name = '<img src=x onerror="alert(1)">&\'';
    expect(html`<td>${name}</td>`.text).toBe('<td>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;</td>');
    expect(html`<ul>${['a<', 'b'].map((item) => html`<li>${item}</li>`)}</ul>`.text).toBe(
      '<ul><li>a&lt;</li><li>b</li></ul>',
    );
    expect(html`${raw('<b>kept</b>')}${null}${undefined}${false}${0}`.text).toBe('<b>kept</b>0');
    expect(escapeHtml('"x"')).toBe('&quot;x&quot;');
  });

  it('writes JSON that cannot close its script element', () => {
    const text = jsonForScript({ value: '</script><script>alert(1)</script>&\u2028' }).text;
    expect(text).not.toMatch(/<|>|&/);
    expect(JSON.parse(text)).toEqual({ value: '</script><script>alert(1)</script>&\u2028' });
  });
});

describe('where apply-sql sends SQL', () => {
  it('defaults to Supabase and the project of a *.supabase.co BACKEND_URL, or to localbase and `local`', () => {
    const hosted = { url: 'https://abcdefghijkl.supabase.co', anonKey: 'anon', serviceRoleKey: 'service' };
    const hostedConfig = testConfig('/tmp/logs', { backend: hosted });
    expect(managementTarget(hostedConfig, hosted)).toEqual({
      url: 'https://api.supabase.com',
      projectRef: 'abcdefghijkl',
    });
    const elsewhere = { ...hosted, url: 'https://db.example.org' };
    expect(managementTarget(testConfig('/tmp/logs', { backend: elsewhere }), elsewhere)).toEqual({
      url: 'https://api.supabase.com',
      projectRef: undefined,
    });
    const localbase = { url: 'http://127.0.0.1:54321', anonKey: 'anon', serviceRoleKey: 'service' };
    expect(managementTarget(testConfig('/tmp/logs'), localbase)).toEqual({
      url: 'http://127.0.0.1:54321',
      projectRef: 'local',
    });
    const configured = testConfig('/tmp/logs', {
      backend: hosted,
      admin: {
        enabled: true,
        secret: undefined,
        emails: [],
        managementApiUrl: 'http://127.0.0.1:9',
        projectRef: 'other',
      },
    });
    expect(managementTarget(configured, hosted)).toEqual({ url: 'http://127.0.0.1:9', projectRef: 'other' });
  });

  it('reads MANAGEMENT_API_URL and BACKEND_PROJECT_REF from the environment, refusing bad values', () => {
    const good = loadConfig({
      HOME: '/home/x',
      MANAGEMENT_API_URL: 'https://api.example.com/',
      BACKEND_PROJECT_REF: 'proj-1',
    });
    expect(good.ok && good.config.admin).toMatchObject({
      managementApiUrl: 'https://api.example.com',
      projectRef: 'proj-1',
    });
    const bad = loadConfig({ HOME: '/home/x', MANAGEMENT_API_URL: 'ftp://x', BACKEND_PROJECT_REF: '../x' });
    expect(bad.ok ? [] : bad.problems).toEqual([
      'MANAGEMENT_API_URL: must be an http(s) URL',
      'BACKEND_PROJECT_REF: must be a project ref (lower-case letters, digits and dashes)',
    ]);
  });
});

describe('admin mode not ready', () => {
  const notReady: Array<
    [
      string,
      { enabled: boolean; secret: string; emails: string[] },
      { url: string; anonKey: string; serviceRoleKey: undefined } | undefined,
    ]
  > = [
    ['ENABLE_ADMIN_MODE is false', { enabled: false, secret: SECRET, emails: [] }, undefined],
    [
      'no service-role key is known',
      { enabled: true, secret: SECRET, emails: [] },
      { url: 'http://127.0.0.1:1', anonKey: 'anon', serviceRoleKey: undefined },
    ],
  ];
  for (const [label, admin, backend] of notReady) {
    it(`refuses every /__admin/* route with 403 admin_mode_not_ready when ${label}`, async () => {
      const gateway = await startTestGateway({ config: { admin }, ...(backend ? { backend } : {}) });
      try {
        const routes = adminRoutes(gateway.app);
        expect(routes.length).toBeGreaterThan(20);
        // Even with a cookie signed by the right key.
        const cookie = cookieHeader(signAdminCookie(SECRET, 'secret'));
        for (const route of routes) {
          const response = await gateway.app.inject({
            method: route.method as 'GET',
            url: route.path,
            headers: { cookie, accept: 'text/html' },
            payload: route.method === 'GET' ? undefined : { secret: SECRET },
          });
          expect(response.statusCode, `${route.method} ${route.path}`).toBe(403);
          expect(response.json()).toMatchObject({ error: 'admin_mode_not_ready', admin_available: false });
        }
        const status = (await gateway.app.inject({ url: '/api/update-status' })).json();
        expect(status.admin_available).toBe(false);
      } finally {
        await gateway.close();
      }
    });
  }
});

describe('admin mode ready', () => {
  it('refuses every route but login, logout and the browser-proof report without a valid cookie', async () => {
    const open = new Set([
      'GET /__admin/login',
      'POST /__admin/login',
      'POST /__admin/logout',
      'POST /__admin/browser-proof-result',
    ]);
    const forged = cookieHeader(signAdminCookie('a-different-secret-of-enough-length', 'secret'));
    const expired = cookieHeader(
      signAdminCookie(SECRET, 'secret', Math.floor(Date.now() / 1000) - ADMIN_COOKIE_MAX_AGE_S - 1),
    );
    const tampered = cookieHeader(`${signAdminCookie(SECRET, 'secret')}x`);
    for (const route of adminRoutes(ready.app)) {
      if (open.has(`${route.method} ${route.path}`)) continue;
      for (const cookie of [undefined, forged, expired, tampered]) {
        const response = await ready.app.inject({
          method: route.method as 'GET',
          url: route.path,
          headers: cookie ? { cookie } : {},
          payload: route.method === 'GET' ? undefined : {},
        });
        expect(response.statusCode, `${route.method} ${route.path} with ${cookie ?? 'no cookie'}`).toBe(401);
        expect(response.json().error).toBe('admin_login_required');
      }
    }
  });

  it('sends a browser without a session to the login page, remembering where it was going', async () => {
    const response = await ready.app.inject({ url: '/__admin/storage?x=1', headers: { accept: 'text/html' } });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/__admin/login?next=${encodeURIComponent('/__admin/storage?x=1')}`);
  });

  it('accepts a cookie signed with ADMIN_SECRET until it is 12 hours old', async () => {
    const almost = cookieHeader(
      signAdminCookie(SECRET, 'secret', Math.floor(Date.now() / 1000) - ADMIN_COOKIE_MAX_AGE_S + 60),
    );
    const response = await ready.app.inject({ url: '/__admin/no-such-page', headers: { cookie: almost } });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: 'not_found' });
  });

  it('unlocks with the secret, in constant time, with a cookie for Path=/, HttpOnly, SameSite=Strict, 12 hours', async () => {
    const wrong = await ready.app.inject({ method: 'POST', url: '/__admin/login', payload: { secret: `${SECRET}x` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('invalid_admin_secret');
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const right = await ready.app.inject({ method: 'POST', url: '/__admin/login', payload: { secret: SECRET } });
    expect(right.statusCode).toBe(200);
    expect(right.json()).toMatchObject({ ok: true, subject: 'secret', method: 'secret' });
    const setCookie = String(right.headers['set-cookie']);
    expect(setCookie).toMatch(/^app_admin=[^;]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(setCookie).not.toContain('Secure');
    const cookie = await signInWithSecret(ready.app, SECRET);
    expect((await ready.app.inject({ url: '/__admin/login', headers: { cookie } })).json().signed_in).toBe(true);
  });

  it('marks the cookie Secure when the request came over https', async () => {
    const response = await ready.app.inject({
      method: 'POST',
      url: '/__admin/login',
      payload: { secret: SECRET },
      headers: { 'x-forwarded-proto': 'https' },
    });
    // trustProxy is off: a header cannot claim https; only a TLS socket can.
    expect(String(response.headers['set-cookie'])).not.toContain('Secure');
  });

  it('unlocks from the form and goes on to the page it was asked for, never to another site', async () => {
    const form = (next: string) =>
      ready.app.inject({
        method: 'POST',
        url: '/__admin/login',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'text/html',
          origin: ORIGIN,
          host: HOST,
        },
        payload: new URLSearchParams({ secret: SECRET, next }).toString(),
      });
    expect((await form('/__admin/roles')).headers.location).toBe('/__admin/roles');
    for (const next of [
      'https://evil.example/',
      '//evil.example/__admin/x',
      '/__admin/../../x\\y',
      '/api/update-now',
    ]) {
      expect((await form(next)).headers.location, next).toBe('/__admin/verify');
    }
    const wrong = await ready.app.inject({
      method: 'POST',
      url: '/__admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: 'secret=nope',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('That is not the admin secret of this server.');
  });

  it('refuses a cross-site POST to any admin route (and to /api/update-now) with 403 csrf_refused', async () => {
    const cookie = await signInWithSecret(ready.app, SECRET);
    const crossSite = [
      { origin: 'https://evil.example', host: HOST },
      { origin: 'null', host: HOST },
      { 'sec-fetch-site': 'cross-site', host: HOST },
    ];
    const posts = adminRoutes(ready.app).filter((route) => route.method !== 'GET' && route.method !== 'OPTIONS');
    for (const route of [...posts, { method: 'POST', path: '/api/update-now' }]) {
      for (const headers of crossSite) {
        for (const withCookie of [true, false]) {
          const response = await ready.app.inject({
            method: route.method as 'POST',
            url: route.path,
            headers: {
              ...headers,
              ...(withCookie ? { cookie } : {}),
              'content-type': 'application/x-www-form-urlencoded',
            },
            payload: `secret=${SECRET}`,
          });
          expect(response.statusCode, `${route.method} ${route.path} ${JSON.stringify(headers)}`).toBe(403);
          expect(response.json().error).toBe('csrf_refused');
        }
      }
    }
    // The same POST from this server's own page passes the guard (and fails later, on its body).
    const sameSite = await ready.app.inject({
      method: 'POST',
      url: '/__admin/apply-sql',
      headers: { cookie, origin: ORIGIN, host: HOST, 'sec-fetch-site': 'same-origin' },
      payload: {},
    });
    expect(sameSite.statusCode).toBe(400);
  });

  it('logs out by clearing the cookie', async () => {
    const cookie = await signInWithSecret(ready.app, SECRET);
    const response = await ready.app.inject({ method: 'POST', url: '/__admin/logout', headers: { cookie } });
    expect(response.json()).toEqual({ ok: true, signed_out: true });
    expect(String(response.headers['set-cookie'])).toMatch(
      /^app_admin=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/,
    );
  });

  it("gives every page its own policy: nonce'd inline scripts and styles, no inline script without it", async () => {
    const cookie = await signInWithSecret(ready.app, SECRET);
    const pages = ['/__admin/login', '/__admin/patch'];
    const nonces = new Set<string>();
    for (const url of pages) {
      const response = await ready.app.inject({ url, headers: { cookie, accept: 'text/html' } });
      expect(response.statusCode, url).toBe(200);
      const csp = String(response.headers['content-security-policy']);
      const nonce = nonceOf(csp);
      expect(nonce, url).toBeDefined();
      nonces.add(nonce ?? '');
      expect(csp).toMatch(/script-src 'self' 'nonce-[^']+'(;|$)/);
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(csp).toContain("frame-ancestors 'none'");
      for (const tag of inlineElements(response.body).tags) {
        if (/type="application\/json"/.test(tag)) continue;
        expect(tag, `${url}: ${tag}`).toContain(`nonce="${nonce}"`);
      }
      expect(response.body).not.toMatch(/\son[a-z]+=/i);
      expect(response.headers['cache-control']).toBe('no-store');
    }
    expect(nonces.size).toBe(pages.length);
  });
});

describe('the unlock rate limit', () => {
  it('shares the credential budget of /__auth/login and answers 429 rate_limited with Retry-After', async () => {
    const gateway = await startTestGateway({
      config: { admin: { enabled: true, secret: SECRET, emails: [] } },
      rateLimits: { credentials: { max: 3, windowMs: 60_000 } },
    });
    try {
      const login = () =>
        gateway.app.inject({ method: 'POST', url: '/__admin/login', payload: { secret: 'wrong-wrong-wrong' } });
      expect((await login()).statusCode).toBe(401);
      expect((await login()).statusCode).toBe(401);
      // The third attempt of the window goes to the app's login: same budget.
      expect(
        (
          await gateway.app.inject({
            method: 'POST',
            url: '/__auth/login',
            payload: { username: 'a@example.com', password: 'password-1' },
          })
        ).statusCode,
      ).not.toBe(429);
      const limited = await gateway.app.inject({ method: 'POST', url: '/__admin/login', payload: { secret: SECRET } });
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Even the right secret does not get through while the budget is spent; the page itself is not limited.
      expect(limited.headers['set-cookie']).toBeUndefined();
      expect((await gateway.app.inject({ url: '/__admin/login' })).statusCode).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

// The auth wrappers' edges that localbase cannot show: a backend that is down, a hosted project
// without a service key (public signup, e-mail confirmation), and what the fake backend is sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEAD_BACKEND, startTestGateway } from './helpers.ts';

interface Seen {
  url: string;
  authorization: string | undefined;
}

let backend: http.Server;
let backendUrl: string;
let seen: Seen[] = [];
/** What the fake /auth/v1/signup answers: a session, or a user awaiting e-mail confirmation. */
let signupAnswer: 'session' | 'confirm' = 'confirm';

beforeAll(async () => {
  backend = http.createServer((request, response) => {
    seen.push({ url: request.url ?? '', authorization: request.headers.authorization });
    response.setHeader('content-type', 'application/json');
    if (request.url === '/auth/v1/signup') {
      const user = { id: '11111111-2222-3333-4444-555555555555', email: 'new@example.com' };
      const token = `e30.${Buffer.from(JSON.stringify({ sub: user.id })).toString('base64url')}.sig`;
      response.end(
        JSON.stringify(
          signupAnswer === 'session'
            ? { access_token: token, refresh_token: 'r', expires_in: 3600, token_type: 'bearer', user }
            : user,
        ),
      );
      return;
    }
    if (request.url === '/rest/v1/rpc/app_bootstrap_user') {
      response.end(JSON.stringify({ user_id: '11111111-2222-3333-4444-555555555555', created: ['users'] }));
      return;
    }
    if (request.url?.startsWith('/rest/v1/user_profiles')) {
      response.end('[{"handle": null}]');
      return;
    }
    response.statusCode = 404;
    response.end(JSON.stringify({ code: 'PGRST202', message: 'not found' }));
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
});
afterAll(() => backend.close());

describe('a project without a service key', () => {
  it('signs up through the public endpoint and reports that e-mail confirmation is needed', async () => {
    const gateway = await startTestGateway({
      backend: { url: backendUrl, anonKey: 'anon-key', serviceRoleKey: undefined },
    });
    try {
      seen = [];
      signupAnswer = 'confirm';
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/__auth/signup',
        payload: { username: 'new@example.com', password: 'long-enough' },
      });
      expect(response.statusCode).toBe(202);
      expect(response.json()).toEqual({ ok: true, session: null, confirmation_required: true });
      expect(seen).toEqual([{ url: '/auth/v1/signup', authorization: 'Bearer anon-key' }]);
    } finally {
      await gateway.close();
    }
  });

  it('bootstraps with the new session when the project confirms at once, never with a service key', async () => {
    const gateway = await startTestGateway({
      backend: { url: backendUrl, anonKey: 'anon-key', serviceRoleKey: undefined },
    });
    try {
      seen = [];
      signupAnswer = 'session';
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/__auth/signup',
        payload: { username: 'new@example.com', password: 'long-enough' },
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().bootstrap).toMatchObject({
        created: ['users'],
        warnings: ['community_profile_unavailable'],
      });
      const userCalls = seen.filter((call) => call.url.startsWith('/rest/v1/'));
      expect(userCalls.length).toBeGreaterThan(0);
      for (const call of userCalls) expect(call.authorization).toMatch(/^Bearer e30\./);
    } finally {
      await gateway.close();
    }
  });

  it('answers /__auth/check with 503 check_unavailable instead of guessing', async () => {
    const gateway = await startTestGateway({
      backend: { url: backendUrl, anonKey: 'anon-key', serviceRoleKey: undefined },
    });
    try {
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/__auth/check',
        payload: { username: 'new@example.com' },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toBe('check_unavailable');
    } finally {
      await gateway.close();
    }
  });
});

describe('a backend that is down', () => {
  it('gives 502 backend_unavailable on login, check and the bearer routes', async () => {
    const gateway = await startTestGateway({ backend: DEAD_BACKEND });
    const token = `e30.${Buffer.from(JSON.stringify({ sub: '11111111-2222-3333-4444-555555555555' })).toString('base64url')}.sig`;
    try {
      const calls = [
        gateway.app.inject({
          method: 'POST',
          url: '/__auth/login',
          payload: { username: 'a@example.com', password: 'long-enough' },
        }),
        gateway.app.inject({ method: 'POST', url: '/__auth/check', payload: { username: 'a@example.com' } }),
        gateway.app.inject({ url: '/__auth/backup/best', headers: { authorization: `Bearer ${token}` } }),
        gateway.app.inject({
          method: 'POST',
          url: '/__leaderboard',
          headers: { authorization: `Bearer ${token}` },
          payload: { period: 'day' },
        }),
      ];
      for (const response of await Promise.all(calls)) {
        expect(response.statusCode).toBe(502);
        expect(response.json().error).toBe('backend_unavailable');
      }
    } finally {
      await gateway.close();
    }
  });
});

// Two studyhall servers on one PostgreSQL (a district: docs/deployment.md), each with its own
// localbase, DATA_DIR and port, as `npm start` runs them with the same DATABASE_URL: what one server
// counts, ends or signs with holds on the other. Runs the product's embedded PostgreSQL.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistrict, type District, type DistrictServer } from '#tools/testing/district-servers.ts';
import type { PushWorkerSettings } from '../src/push/push-worker.ts';
import { signInWithSecret, signUp } from './admin-helpers.ts';
import { RELAXED_DEADLINES } from './helpers.ts';
import {
  followStartAlerts,
  readOutbox,
  registerDeviceToken,
  serviceClient,
  shareCurrentSubject,
  signUpStudent,
  startStudying,
} from './push-fixtures.ts';
import { startPushReceiver, type PushReceiver } from './push-receiver.ts';

const ADMIN_SECRET = 'district-test-admin-secret-1234';
const ERROR_REPORTS_PER_MINUTE = 6;
const fastPush: Partial<PushWorkerSettings> = {
  pollIntervalMs: 100,
  retryBaseSeconds: 1,
  retryMaxSeconds: 2,
  allowPlainHttp: true,
};

let district: District;
let a: DistrictServer;
let b: DistrictServer;

beforeAll(async () => {
  district = await startDistrict({
    config: { admin: { enabled: true, secret: ADMIN_SECRET, emails: [] } },
    gateway: {
      ...RELAXED_DEADLINES,
      push: fastPush,
      // Sign-ups in these tests come from one address: only the per-account budget may refuse them.
      rateLimits: {
        credentials: { max: 1_000, windowMs: 60_000 },
        errorReports: { max: ERROR_REPORTS_PER_MINUTE, windowMs: 60_000 },
      },
    },
  });
  [a, b] = district.servers as [DistrictServer, DistrictServer];
}, 240_000);

afterAll(async () => {
  await district?.close();
}, 60_000);

function login(app: FastifyInstance, username: string, password: string, ip: string) {
  return app.inject({ method: 'POST', url: '/__auth/login', remoteAddress: ip, payload: { username, password } });
}

describe('a district of two servers on one database', () => {
  it('signs with the same keys on both: a session from A is accepted by B', async () => {
    expect(b.localbase.anonKey).toBe(a.localbase.anonKey);
    expect(b.localbase.serviceRoleKey).toBe(a.localbase.serviceRoleKey);
    const ada = await signUp(a.gateway.app, 'keys@example.com');
    const me = await b.gateway.app.inject({
      url: '/__backend/auth/v1/user',
      headers: { authorization: `Bearer ${ada.token}`, apikey: b.localbase.anonKey },
    });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().id).toBe(ada.userId);
  });

  it("ten wrong passwords spread over A and B spend the account's budget, as on one server", async () => {
    const account = await signUp(a.gateway.app, 'budget@example.com');
    // A fresh address per attempt: only the account's budget can refuse.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const server = attempt % 2 === 0 ? a : b;
      const response = await login(server.gateway.app, account.email, 'wrong-password-1', `10.1.0.${attempt + 1}`);
      expect(response.statusCode, `attempt ${attempt + 1}: ${response.body}`).toBe(401);
    }
    for (const server of [a, b]) {
      const refused = await login(server.gateway.app, account.email, `${account.email}-password`, '10.1.1.1');
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json()).toMatchObject({ error: 'rate_limited', scope: 'account', limit: 10 });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Another account is not touched by it.
    const other = await signUp(b.gateway.app, 'budget-other@example.com');
    expect((await login(a.gateway.app, other.email, `${other.email}-password`, '10.1.1.2')).statusCode).toBe(200);
  });

  it('counts one per-address budget over both servers', async () => {
    // The servers allow ERROR_REPORTS_PER_MINUTE from one address together, not each.
    const report = (server: DistrictServer, ip: string) =>
      server.gateway.app.inject({ method: 'POST', url: '/__errors', remoteAddress: ip, payload: { message: 'x' } });
    const answers: number[] = [];
    for (let attempt = 0; attempt < ERROR_REPORTS_PER_MINUTE + 2; attempt += 1)
      answers.push((await report(attempt % 2 === 0 ? a : b, '10.2.0.1')).statusCode);
    expect(answers).toEqual([...Array<number>(ERROR_REPORTS_PER_MINUTE).fill(202), 429, 429]);
    const refused = await report(b, '10.2.0.1');
    expect(refused.json()).toMatchObject({ error: 'rate_limited', limit: ERROR_REPORTS_PER_MINUTE });
    // Another address still has its whole budget.
    expect((await report(b, '10.2.0.2')).statusCode).toBe(202);
  });

  it('ends the admin cookie on B when the session logs out on A', async () => {
    const cookie = await signInWithSecret(a.gateway.app, ADMIN_SECRET);
    const onB = await b.gateway.app.inject({ url: '/__admin/roles', headers: { cookie } });
    expect(onB.statusCode, onB.body).toBe(200);
    const loggedOut = await a.gateway.app.inject({ method: 'POST', url: '/__admin/logout', headers: { cookie } });
    expect(loggedOut.statusCode).toBeLessThan(400);
    for (const server of [a, b]) {
      const refused = await server.gateway.app.inject({ url: '/__admin/roles', headers: { cookie } });
      expect(refused.statusCode, refused.body).not.toBe(200);
      expect(refused.body).not.toContain('Roles');
    }
    // Another session of the same secret stands: only the one logged out ended.
    const again = await signInWithSecret(b.gateway.app, ADMIN_SECRET);
    expect((await a.gateway.app.inject({ url: '/__admin/roles', headers: { cookie: again } })).statusCode).toBe(200);
  });

  describe('start alerts with both workers running', () => {
    let receiver: PushReceiver;

    beforeAll(async () => {
      const keys = await Promise.all([a, b].map((server) => server.gateway.push.vapidKeys()));
      if (!keys[0]?.ok) throw new Error('server A has no VAPID keys');
      receiver = await startPushReceiver({ expectedVapidKey: keys[0].keys.publicKey });
      await Promise.all([a.gateway.push.start(), b.gateway.push.start()]);
    });

    afterAll(async () => {
      await receiver?.close();
    });

    it('serves one VAPID public key from both servers, though each DATA_DIR generated its own', async () => {
      const answers = await Promise.all(
        [a, b].map((server) => server.gateway.app.inject({ url: '/api/push/vapid-public-key' })),
      );
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
      expect(answers[1]?.json().public_key).toBe(answers[0]?.json().public_key);
    });

    it('pushes a start alert once, signed with the shared key', async () => {
      const backendUrl = `${a.url}/__backend`;
      const ada = await signUpStudent(backendUrl, a.localbase.anonKey, 'ada_d');
      const bo = await signUpStudent(`${b.url}/__backend`, b.localbase.anonKey, 'bo_d');
      await followStartAlerts(bo, ada);
      await shareCurrentSubject(ada);
      const device = receiver.subscribe();
      await registerDeviceToken(bo, device.token);
      await startStudying(ada, 'Anatomy');
      const [push] = await receiver.waitForReceived(1, 10_000, device.id);
      expect(push?.payload).toMatchObject({ type: 'start_alert', actor: { id: ada.id } });
      // Both workers poll every 100 ms: a second send would show within this.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(receiver.received.filter((item) => item.subscriptionId === device.id)).toHaveLength(1);
      expect(receiver.attempts.get(device.id)).toBe(1);
      expect(receiver.rejected).toEqual([]);
      const rows = await readOutbox(serviceClient(a.localbase.url, a.localbase.serviceRoleKey), device.token);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ attempts: 1, failed_at: null });
    }, 30_000);
  });
});

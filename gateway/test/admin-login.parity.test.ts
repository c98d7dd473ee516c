// Unlocking the console with a backend session against a real localbase: the browser's access
// token is checked by the backend itself, then allowed by an ADMIN_EMAIL(S) account the owner
// confirmed or an admin row in user_roles and refused otherwise; a cookie from a previous boot
// without ADMIN_SECRET is refused.
import { describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { adminCookieOf, signInWithSecret, signUp, startAdminGateway, unlockWithToken } from './admin-helpers.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const LISTED = 'listed-admin@example.com';
const SECRET = 'login-test-admin-secret-123';
const localbase = fileFixture(startLocalbaseStack);
const gateway = fileFixture(() => startAdminGateway(localbase, { secret: SECRET, emails: [LISTED] }));

describe('unlocking with a backend session', () => {
  it('allows an account whose e-mail is in ADMIN_EMAIL / ADMIN_EMAILS once the owner confirmed it', async () => {
    const listed = await signUp(gateway.app, LISTED);
    expect((await unlockWithToken(gateway.app, listed.token)).json().error).toBe('admin_email_unconfirmed');
    const owner = await signInWithSecret(gateway.app, SECRET);
    const confirmed = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/roles/confirm-email',
      headers: { cookie: owner },
      payload: { user_id: listed.userId },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(201);
    const response = await unlockWithToken(gateway.app, listed.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      ok: true,
      method: 'admin_emails',
      subject: `user:${listed.userId}:${LISTED}`,
    });
    const page = await gateway.app.inject({ url: '/__admin/roles', headers: { cookie: adminCookieOf(response) } });
    expect(page.statusCode).toBe(200);
  });

  it('allows an account with an admin row in user_roles, and refuses it before the row exists', async () => {
    const roled = await signUp(gateway.app, 'roled@example.com');
    const before = await unlockWithToken(gateway.app, roled.token);
    expect(before.statusCode).toBe(403);
    expect(before.json()).toMatchObject({
      error: 'not_an_admin',
      message: expect.stringContaining('roled@example.com'),
    });
    expect(before.headers['set-cookie']).toBeUndefined();
    await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [
      roled.userId,
    ]);
    const after = await unlockWithToken(gateway.app, roled.token);
    expect(after.statusCode).toBe(200);
    expect(after.json().method).toBe('user_roles');
  });

  it("refuses an account session the owner's confirmation before it reads the body", async () => {
    const admin = await signUp(gateway.app, 'row-admin@example.com');
    await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [
      admin.userId,
    ]);
    const unlocked = await unlockWithToken(gateway.app, admin.token);
    expect(unlocked.statusCode, unlocked.body).toBe(200);
    const cookie = adminCookieOf(unlocked);
    // A valid body, one the schema refuses and none at all: the same refusal, naming no field.
    for (const payload of [{ user_id: admin.userId }, { user_id: 'not-an-id' }, {}]) {
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/__admin/roles/confirm-email',
        headers: { cookie },
        payload,
      });
      expect(response.statusCode, JSON.stringify(payload)).toBe(403);
      expect(response.json()).toMatchObject({ error: 'secret_login_required' });
      expect(response.json().problems).toBeUndefined();
    }
  });

  it('refuses any other account, a moderator row, a forged token and a signed-out session', async () => {
    const other = await signUp(gateway.app, 'someone@example.com');
    await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'moderator')`, [
      other.userId,
    ]);
    expect((await unlockWithToken(gateway.app, other.token)).json().error).toBe('not_an_admin');
    const [header, payload] = other.token.split('.');
    const forged = await unlockWithToken(gateway.app, `${header}.${payload}.${'A'.repeat(43)}`);
    expect(forged.statusCode).toBe(401);
    expect(forged.json().error).toBe('invalid_token');
    const listed = await gateway.app.inject({
      method: 'POST',
      url: '/__auth/login',
      payload: { username: LISTED, password: `${LISTED}-password` },
    });
    const token = listed.json().session.access_token;
    await fetch(`${localbase.url}/auth/v1/logout`, {
      method: 'POST',
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}` },
    });
    const signedOut = await unlockWithToken(gateway.app, token);
    expect(signedOut.statusCode).toBe(401);
    expect(signedOut.json().error).toBe('invalid_token');
  });

  it("unlocks from the login page's token form and goes on to the page asked for", async () => {
    const session = await gateway.app.inject({
      method: 'POST',
      url: '/__auth/login',
      payload: { username: LISTED, password: `${LISTED}-password` },
    });
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: new URLSearchParams({
        access_token: session.json().session.access_token,
        next: '/__admin/storage',
      }).toString(),
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/__admin/storage');
    expect(String(response.headers['set-cookie'])).toMatch(
      /^app_admin=.+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
    );
  });
});

describe('without ADMIN_SECRET', () => {
  it('signs cookies with a key drawn at boot: a cookie from a previous boot is refused', async () => {
    const firstBoot = await startAdminGateway(localbase, { secret: undefined, emails: [LISTED] });
    let cookie: string;
    try {
      const session = await firstBoot.app.inject({
        method: 'POST',
        url: '/__auth/login',
        payload: { username: LISTED, password: `${LISTED}-password` },
      });
      const unlocked = await unlockWithToken(firstBoot.app, session.json().session.access_token);
      expect(unlocked.statusCode).toBe(200);
      cookie = adminCookieOf(unlocked);
      expect((await firstBoot.app.inject({ url: '/__admin/roles', headers: { cookie } })).statusCode).toBe(200);
      // No secret: the secret way is closed.
      expect(
        (
          await firstBoot.app.inject({
            method: 'POST',
            url: '/__admin/login',
            payload: { secret: 'anything-at-all-here' },
          })
        ).json().error,
      ).toBe('secret_login_disabled');
    } finally {
      await firstBoot.close();
    }
    const secondBoot = await startAdminGateway(localbase, { secret: undefined, emails: [LISTED] });
    try {
      const refused = await secondBoot.app.inject({ url: '/__admin/roles', headers: { cookie } });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error).toBe('admin_login_required');
      // Nor does it count as an admin anywhere else (the proxy's service key, update-now).
      // Anon may not read user_roles at all; the service key could.
      const proxied = await secondBoot.app.inject({
        url: '/__backend/rest/v1/user_roles?select=user_id',
        headers: { cookie },
      });
      expect(proxied.statusCode).toBe(401);
      expect(proxied.json().code).toBe('42501');
    } finally {
      await secondBoot.close();
    }
  });
});

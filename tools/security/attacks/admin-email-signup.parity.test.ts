// attack: become admin by signing up with the ADMIN_EMAIL address before its owner does. Nothing
// proves an address here (localbase confirms every signup at once), so POST /__auth/signup with
// that address and POST /__admin/login with the session used to unlock the console (method
// admin_emails): every user, everyone's backups. Now an ADMIN_EMAIL account unlocks it only after
// the owner, signed in with ADMIN_SECRET, confirmed that very account (its user id).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { signInWithSecret } from '#gateway/test/admin-helpers.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';

const ADMIN_EMAIL = 'owner@studyhall.example';
const SECRET = 'admin-email-attack-secret-32chars';
let localbase: Localbase;
let gateway: TestGateway;

const backendTarget = () => ({
  url: localbase.url,
  anonKey: localbase.anonKey,
  serviceRoleKey: localbase.serviceRoleKey,
});

function startGateway(secret: string | undefined, logger?: object): Promise<TestGateway> {
  return startTestGateway({
    backend: backendTarget(),
    config: { admin: { enabled: true, secret, emails: [ADMIN_EMAIL] } },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
    ...(logger ? { logger } : {}),
  });
}

async function signUp(email: string, password = `${email}-password`): Promise<{ token: string; userId: string }> {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/__auth/signup',
    payload: { username: email, password },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { token: response.json().session.access_token, userId: response.json().user.id };
}

function unlock(on: TestGateway, accessToken: string) {
  return on.app.inject({ method: 'POST', url: '/__admin/login', payload: { access_token: accessToken } });
}

function cookieOf(response: Awaited<ReturnType<typeof unlock>>): string {
  return `app_admin=${encodeURIComponent(response.cookies.find((item) => item.name === 'app_admin')?.value ?? '')}`;
}

function confirm(on: TestGateway, cookie: string, userId: string) {
  return on.app.inject({
    method: 'POST',
    url: '/__admin/roles/confirm-email',
    headers: { cookie },
    payload: { user_id: userId },
  });
}

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  gateway = await startGateway(SECRET);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await localbase?.close();
});

describe('attack: signing up with the ADMIN_EMAIL address to unlock the console', () => {
  it('refuses the unconfirmed account with 403 admin_email_unconfirmed and no cookie, saying what the owner must do', async () => {
    const squatter = await signUp(ADMIN_EMAIL);
    const refused = await unlock(gateway, squatter.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      error: 'admin_email_unconfirmed',
      user_id: squatter.userId,
      email: ADMIN_EMAIL,
    });
    expect(refused.json().message).toMatch(
      /sign in to the admin console with ADMIN_SECRET and confirm this account on the Roles page/,
    );
    expect(refused.headers['set-cookie']).toBeUndefined();
    // Nothing else opens either: the proxy stays the student's, the console wants a login.
    expect(
      (await gateway.app.inject({ url: '/__admin/roles', headers: { accept: 'application/json' } })).statusCode,
    ).toBe(401);

    // The owner sees it pending on the Roles page, and removes the squatter instead of confirming.
    const owner = await signInWithSecret(gateway.app, SECRET);
    const roles = await gateway.app.inject({
      url: '/__admin/roles',
      headers: { cookie: owner, accept: 'application/json' },
    });
    expect(roles.json()).toMatchObject({
      can_confirm_admin_emails: true,
      pending_admin_emails: [{ user_id: squatter.userId, email: ADMIN_EMAIL, confirmed: false }],
    });
    const page = await gateway.app.inject({ url: '/__admin/roles', headers: { cookie: owner, accept: 'text/html' } });
    expect(page.body).toContain('action="/__admin/roles/confirm-email"');
    expect(page.body).toContain(squatter.userId);
    const removed = await fetch(`${localbase.url}/auth/v1/admin/users/${squatter.userId}`, {
      method: 'DELETE',
      headers: { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}` },
    });
    expect(removed.ok).toBe(true);
  });

  it('lets only the ADMIN_SECRET session confirm, binds the confirmation to the account, and keeps it across a restart', async () => {
    const real = await signUp(ADMIN_EMAIL, 'the-real-owners-password');
    // An admin by user_roles, signed in with an account, cannot confirm anyone (itself included).
    const roled = await signUp('roled-admin@studyhall.example');
    await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [
      roled.userId,
    ]);
    const roledUnlock = await unlock(gateway, roled.token);
    expect(roledUnlock.statusCode).toBe(200);
    expect(roledUnlock.json().method).toBe('user_roles');
    const roledCookie = cookieOf(roledUnlock);
    const byAccount = await confirm(gateway, roledCookie, real.userId);
    expect(byAccount.statusCode).toBe(403);
    expect(byAccount.json().error).toBe('secret_login_required');
    expect((await unlock(gateway, real.token)).json().error).toBe('admin_email_unconfirmed');

    const owner = await signInWithSecret(gateway.app, SECRET);
    const confirmed = await confirm(gateway, owner, real.userId);
    expect(confirmed.statusCode, confirmed.body).toBe(201);
    expect(confirmed.json()).toMatchObject({ ok: true, confirmed: { user_id: real.userId, email: ADMIN_EMAIL } });
    const unlocked = await unlock(gateway, real.token);
    expect(unlocked.statusCode).toBe(200);
    expect(unlocked.json()).toMatchObject({ method: 'admin_emails', subject: `user:${real.userId}:${ADMIN_EMAIL}` });
    // Only ADMIN_EMAIL accounts are confirmed this way.
    expect((await confirm(gateway, owner, roled.userId)).json().error).toBe('not_in_admin_emails');

    // Kept in the database: a new gateway (a restart) still honours it.
    const restarted = await startGateway(SECRET);
    try {
      expect((await unlock(restarted, real.token)).statusCode).toBe(200);
    } finally {
      await restarted.close();
    }

    // Deleted and registered again with the same address: a new account, not confirmed.
    await fetch(`${localbase.url}/auth/v1/admin/users/${real.userId}`, {
      method: 'DELETE',
      headers: { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}` },
    });
    const again = await signUp(ADMIN_EMAIL);
    const refused = await unlock(gateway, again.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe('admin_email_unconfirmed');
  });

  it('without ADMIN_SECRET says at boot, in one warning, that ADMIN_EMAIL cannot be confirmed', async () => {
    const lines: { level: number; msg: string }[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const noSecret = await startGateway(undefined, { level: 'warn', stream });
    try {
      const warnings = lines.filter((line) => line.level === 40 && line.msg.includes('ADMIN_EMAIL'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(/cannot be confirmed without ADMIN_SECRET/);
      const squatter = await signUp('squat-no-secret@studyhall.example');
      expect((await unlock(noSecret, squatter.token)).json().error).toBe('not_an_admin');
    } finally {
      await noSecret.close();
    }
    const withSecret: { msg: string }[] = [];
    const quiet = await startGateway(SECRET, {
      level: 'warn',
      stream: new Writable({ write: (chunk, _encoding, done) => (withSecret.push(JSON.parse(String(chunk))), done()) }),
    });
    await quiet.close();
    expect(withSecret.filter((line) => line.msg.includes('ADMIN_EMAIL'))).toEqual([]);
  });
});

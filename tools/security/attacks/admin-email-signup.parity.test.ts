// attack: become admin by signing up with the ADMIN_EMAIL address before its owner does. Nothing
// proves an address here (localbase confirms every signup at once), so POST /__auth/signup with
// that address and POST /__admin/login with the session used to unlock the console (method
// admin_emails): every user, everyone's backups. Now an ADMIN_EMAIL account unlocks it only after
// the owner, signed in with ADMIN_SECRET, confirmed that very account (its user id), or with a
// session that a link mailed to that address started. The second way must not reopen the first:
// a squatter who proves her own mailbox and then asks for the ADMIN_EMAIL address keeps her own
// address until the link mailed to the new one is followed, and a backend that cannot say that
// addresses change only by mail accepts no such proof at all.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextMail, outboxFor, tokensOf } from '#localbase/test/outbox.ts';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import {
  adminCookieOf,
  signInWithSecret,
  signUp as signUpThrough,
  startAdminGateway,
  unlockWithToken,
} from '#gateway/test/admin-helpers.ts';
import type { TestGateway } from '#gateway/test/helpers.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const ADMIN_EMAIL = 'owner@studyhall.example';
const SECRET = 'admin-email-attack-secret-32chars';
const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;

function startGateway(secret: string | undefined, logger?: object): Promise<TestGateway> {
  return startAdminGateway(localbase, { secret, emails: [ADMIN_EMAIL] }, logger ? { logger } : {});
}

const signUp = (email: string, password?: string) => signUpThrough(gateway.app, email, password);
const unlock = (on: TestGateway, accessToken: string) => unlockWithToken(on.app, accessToken);
const cookieOf = adminCookieOf;

function confirm(on: TestGateway, cookie: string, userId: string) {
  return on.app.inject({
    method: 'POST',
    url: '/__admin/roles/confirm-email',
    headers: { cookie },
    payload: { user_id: userId },
  });
}

async function auth(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const response = await fetch(`${localbase.url}/auth/v1${path}`, {
    method: init.method ?? 'POST',
    headers: {
      apikey: localbase.anonKey,
      authorization: `Bearer ${init.token ?? localbase.anonKey}`,
      'content-type': 'application/json',
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, unknown> };
}

async function deleteAccount(userId: string): Promise<void> {
  const removed = await fetch(`${localbase.url}/auth/v1/admin/users/${userId}`, {
    method: 'DELETE',
    headers: { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}` },
  });
  expect(removed.ok).toBe(true);
}

/** Frees an address an earlier test left taken (as the owner deleting that account would). */
async function freeAddress(email: string): Promise<void> {
  await localbase.database.pool.query(`delete from auth.users where email = $1`, [email]);
}

/** Follows the newest recovery link mailed to `email` (read from the outbox: that mailbox). */
async function recoverySession(email: string): Promise<{ access_token: string; refresh_token: string }> {
  const seen = (await outboxFor(localbase, email)).length;
  expect((await auth('/recover', { body: { email } })).status).toBe(200);
  const { secret } = tokensOf(await nextMail(localbase, email, seen));
  const verified = await auth('/verify', { body: { type: 'recovery', token_hash: secret } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return verified.body as { access_token: string; refresh_token: string };
}

beforeAll(async () => {
  gateway = await startGateway(SECRET);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
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
    await deleteAccount(squatter.userId);
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
    await deleteAccount(real.userId);
    const again = await signUp(ADMIN_EMAIL);
    const refused = await unlock(gateway, again.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe('admin_email_unconfirmed');
  });

  it('takes a session started by a recovery link mailed to the address as its confirmation, recorded and kept', async () => {
    await freeAddress(ADMIN_EMAIL);
    const latest = await signUp(ADMIN_EMAIL, 'owner-password-long-1');
    expect((await unlock(gateway, latest.token)).json().error).toBe('admin_email_unconfirmed');
    const session = await recoverySession(ADMIN_EMAIL);
    const unlocked = await unlock(gateway, session.access_token);
    expect(unlocked.statusCode, unlocked.body).toBe(200);
    expect(unlocked.json()).toMatchObject({ method: 'admin_emails', subject: `user:${latest.userId}:${ADMIN_EMAIL}` });
    // Recorded as the account's confirmation: the Roles page shows how, and a password session
    // (the next login, another gateway) unlocks from now on.
    const owner = await signInWithSecret(gateway.app, SECRET);
    const roles = await gateway.app.inject({
      url: '/__admin/roles',
      headers: { cookie: owner, accept: 'application/json' },
    });
    expect(JSON.stringify(roles.json())).not.toContain('"confirmed":false');
    const page = await gateway.app.inject({ url: '/__admin/roles', headers: { cookie: owner, accept: 'text/html' } });
    expect(page.body).toContain('by a link mailed to the address');
    // The page says how an address is proven now that the server sends mail (or keeps it in the outbox).
    expect(page.body).not.toContain('sends no mail');
    expect(page.body).toContain('signing in through a password-reset or sign-in link mailed to that address');
    expect(page.body).toContain('keeps them on the Outbox page');
    const stored = await localbase.database.pool.query(
      `select email, confirmed_by from public.admin_email_confirmations where user_id = $1`,
      [latest.userId],
    );
    expect(stored.rows).toEqual([{ email: ADMIN_EMAIL, confirmed_by: 'mailbox:recovery' }]);
    const restarted = await startGateway(undefined);
    try {
      expect((await unlock(restarted, latest.token)).statusCode).toBe(200);
    } finally {
      await restarted.close();
    }
    await deleteAccount(latest.userId);
  });

  it('refuses a squatter who proved her own mailbox and then asked for the ADMIN_EMAIL address', async () => {
    await freeAddress(ADMIN_EMAIL);
    const squatter = await signUp('squatter@evil.example');
    const proven = await recoverySession('squatter@evil.example');
    // The address is not hers yet: the change link went to the ADMIN_EMAIL mailbox.
    const seen = (await outboxFor(localbase, ADMIN_EMAIL)).length;
    const change = await auth('/user', { method: 'PUT', token: proven.access_token, body: { email: ADMIN_EMAIL } });
    expect(change.status, JSON.stringify(change.body)).toBe(200);
    expect(change.body).toMatchObject({ email: 'squatter@evil.example', new_email: ADMIN_EMAIL });
    expect((await nextMail(localbase, ADMIN_EMAIL, seen)).to).toBe(ADMIN_EMAIL);
    const refreshed = await auth('/token?grant_type=refresh_token', { body: { refresh_token: proven.refresh_token } });
    expect(refreshed.status).toBe(200);
    for (const token of [proven.access_token, refreshed.body.access_token as string]) {
      const refused = await unlock(gateway, token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('not_an_admin');
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    // A forged claim is no proof either: the backend refuses the token before its amr is read.
    const [header, payload] = proven.access_token.split('.');
    const forged = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    forged.email = ADMIN_EMAIL;
    const forgedToken = `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${'A'.repeat(43)}`;
    expect((await unlock(gateway, forgedToken)).json().error).toBe('invalid_token');
    const confirmations = await localbase.database.pool.query(
      `select count(*)::int as n from public.admin_email_confirmations where user_id = $1`,
      [squatter.userId],
    );
    expect(confirmations.rows[0]?.n).toBe(0);
    await deleteAccount(squatter.userId);
  });

  it('accepts no mailed-link proof from a hosted backend that does not say addresses change only by mail', async () => {
    // localbase has no /auth/v1/settings: as a hosted backend it cannot show mailer_autoconfirm off.
    const hosted = await startAdminGateway(
      localbase,
      { secret: SECRET, emails: [ADMIN_EMAIL] },
      {
        config: {
          backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
        },
      },
    );
    try {
      await freeAddress(ADMIN_EMAIL);
      const account = await signUp(ADMIN_EMAIL, 'owner-password-long-2');
      const session = await recoverySession(ADMIN_EMAIL);
      const refused = await unlock(hosted, session.access_token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('admin_email_unconfirmed');
      await deleteAccount(account.userId);
    } finally {
      await hosted.close();
    }
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

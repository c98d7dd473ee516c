// The console's Users page against a real localbase: every account newest first with its facts,
// search by e-mail or handle, one account's page, and deletion with everything (her stored objects
// through the Storage API, then the account), refused without the typed confirmation. Only an
// admin session reaches any of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import {
  adminCookieOf,
  signInWithSecret,
  signUp as signUpThrough,
  startAdminGateway,
  unlockWithToken,
  type SignedUp,
} from './admin-helpers.ts';
import type { TestGateway } from './helpers.ts';

const SECRET = 'users-page-test-admin-secret';
// The smallest valid PNG: 1x1, transparent.
const PNG = `data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='}`;

let localbase: Localbase;
let gateway: TestGateway;
let cookie: string;

type Student = SignedUp;

const signUp = (name: string): Promise<Student> =>
  signUpThrough(gateway.app, `${name}@example.com`, `${name}-password-1`);

async function asStudent(student: Student, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const response = await gateway.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${student.token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.body === '' ? null : response.json();
}

function admin(method: 'GET' | 'POST', url: string, payload?: unknown, accept = 'application/json') {
  return gateway.app.inject({
    method,
    url,
    headers: { cookie, accept },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

let ada: Student;
let bo: Student;

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  gateway = await startAdminGateway(localbase, { secret: SECRET });
  cookie = await signInWithSecret(gateway.app, SECRET);
  ada = await signUp('ada-users');
  bo = await signUp('bo-users');
  await localbase.database.pool.query(`update public.user_profiles set handle = 'bo_the_great' where user_id = $1`, [
    bo.userId,
  ]);
  await asStudent(ada, 'POST', '/__backend/rest/v1/rpc/record_study_session', {
    p_started_at: new Date(Date.now() - 60 * 60_000).toISOString(),
    p_minutes: 25,
  });
  await asStudent(ada, 'POST', '/__auth/profile', { avatar_url: PNG });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await localbase?.close();
});

describe('the Users page', () => {
  it('lists every account newest first, with sessions, storage and last sign-in', async () => {
    const response = await admin('GET', '/__admin/users');
    expect(response.statusCode, response.body).toBe(200);
    const { users, total } = response.json() as { users: Record<string, unknown>[]; total: number };
    expect(total).toBe(2);
    expect(users.map((user) => user.email)).toEqual([bo.email, ada.email]);
    const adaRow = users[1];
    expect(adaRow).toMatchObject({ id: ada.userId, sessions: 1, minutes: 25, storage_objects: 1, banned: false });
    expect(Number(adaRow?.storage_bytes)).toBeGreaterThan(0);
    expect(adaRow?.last_sign_in_at).toEqual(expect.any(String));
    expect(users[0]).toMatchObject({ handle: 'bo_the_great', sessions: 0, storage_bytes: 0 });
  });

  it('finds an account by part of its e-mail or its handle, in any case', async () => {
    const byEmail = (await admin('GET', '/__admin/users?q=ADA-US')).json();
    expect(byEmail.users.map((user: { id: string }) => user.id)).toEqual([ada.userId]);
    expect(byEmail.total).toBe(2);
    const byHandle = (await admin('GET', '/__admin/users?q=the_great')).json();
    expect(byHandle.users.map((user: { id: string }) => user.id)).toEqual([bo.userId]);
    expect((await admin('GET', '/__admin/users?q=nobody-here')).json().users).toEqual([]);
    const page = await admin('GET', '/__admin/users?q=nobody-here', undefined, 'text/html');
    expect(page.body).toContain('No account matches');
    expect(page.body).toContain('aria-current="page">Users');
  });

  it('shows one account with its actions, and 404 for an unknown id', async () => {
    const page = await admin('GET', `/__admin/users/${ada.userId}`, undefined, 'text/html');
    expect(page.statusCode).toBe(200);
    for (const text of ['E-mail a reset link', 'Show a reset link', `Ban ${ada.email}`, `Delete ${ada.email} for good`])
      expect(page.body).toContain(text);
    const unknown = await admin('GET', '/__admin/users/00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('user_not_found');
    expect((await admin('GET', '/__admin/users/not-an-id')).statusCode).toBe(400);
  });

  it('is closed to a student and to a caller without a session', async () => {
    for (const url of ['/__admin/users', `/__admin/users/${ada.userId}`]) {
      expect((await gateway.app.inject({ url, headers: { accept: 'application/json' } })).statusCode).toBe(401);
      const asAda = await gateway.app.inject({
        url,
        headers: { accept: 'application/json', authorization: `Bearer ${ada.token}` },
      });
      expect(asAda.statusCode).toBe(401);
    }
    const deleteAttempt = await gateway.app.inject({
      method: 'POST',
      url: `/__admin/users/${bo.userId}/delete`,
      headers: { authorization: `Bearer ${ada.token}`, accept: 'application/json' },
      payload: { confirm_account: bo.email },
    });
    expect(deleteAttempt.statusCode).toBe(401);
    expect((await admin('GET', '/__admin/users')).json().total).toBe(2);
  });

  it('bans a student (her token stops working at once, she cannot sign in) and lifts the ban', async () => {
    const read = () =>
      gateway.app.inject({
        url: '/__backend/rest/v1/user_profiles?select=user_id',
        headers: { authorization: `Bearer ${bo.token}` },
      });
    expect((await read()).statusCode).toBe(200);
    const banned = await admin('POST', `/__admin/users/${bo.userId}/ban`, { duration: '24h' });
    expect(banned.statusCode, banned.body).toBe(200);
    expect(banned.json().user).toMatchObject({ id: bo.userId, banned: true });
    expect((await read()).statusCode).toBe(401);
    const login = await gateway.app.inject({
      method: 'POST',
      url: '/__auth/login',
      payload: { username: bo.email, password: 'bo-users-password-1' },
    });
    expect(login.statusCode).toBeGreaterThanOrEqual(400);
    expect((await admin('POST', `/__admin/users/${bo.userId}/ban`, { duration: 'forever' })).statusCode).toBe(400);

    const lifted = await admin('POST', `/__admin/users/${bo.userId}/ban`, { duration: 'none' });
    expect(lifted.json().user).toMatchObject({ banned: false });
    const again = await gateway.app.inject({
      method: 'POST',
      url: '/__auth/login',
      payload: { username: bo.email, password: 'bo-users-password-1' },
    });
    expect(again.statusCode, again.body).toBe(200);
    bo = { ...bo, token: again.json().session.access_token };
    expect((await read()).statusCode).toBe(200);

    const audit = (await admin('GET', '/__admin/audit')).json().entries as { action: string; target_name: string }[];
    expect(audit.slice(0, 2).map((entry) => entry.action)).toEqual(['console:unban_user', 'console:ban_user']);
    expect(audit[1]?.target_name).toBe(bo.email);
  });

  it('hands a student a one-time reset link, or mails one to the outbox', async () => {
    const shown = await admin('POST', `/__admin/users/${ada.userId}/reset-link`, { delivery: 'show' });
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.json().action_link).toMatch(/\/auth\/v1\/verify\?token=[^&]+&type=recovery/);
    const mailed = await admin('POST', `/__admin/users/${ada.userId}/reset-link`, { delivery: 'mail' });
    expect(mailed.json()).toMatchObject({ ok: true, mailed: true });
    expect((await admin('POST', `/__admin/users/${ada.userId}/reset-link`, { delivery: 'post' })).statusCode).toBe(400);
  });

  it('deletes an account only with its e-mail typed, and then with her stored objects', async () => {
    const refused = await admin('POST', `/__admin/users/${ada.userId}/delete`, { confirm_account: bo.email });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('confirmation_required');
    expect((await admin('GET', '/__admin/users')).json().total).toBe(2);

    const deleted = await admin('POST', `/__admin/users/${ada.userId}/delete`, {
      confirm_account: ` ${ada.email.toUpperCase()} `,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ ok: true, deleted: { user_id: ada.userId, objects: 1 } });
    const left = await localbase.database.pool.query(
      `select (select count(*) from storage.objects where owner = $1)::int as objects,
              (select count(*) from public.users where id = $1)::int as users,
              (select count(*) from public.study_sessions where user_id = $1)::int as sessions`,
      [ada.userId],
    );
    expect(left.rows[0]).toEqual({ objects: 0, users: 0, sessions: 0 });
    // One row in the audit log, the database's own, naming the console's admin.
    const recorded = await localbase.database.pool.query(
      `select action, actor_role, detail ->> 'console_admin' as admin from public.admin_audit_log
       where target_user_id = $1 and action not like 'console:%reset_link'`,
      [ada.userId],
    );
    expect(recorded.rows).toEqual([{ action: 'delete_account', actor_role: 'service_role', admin: 'secret' }]);
    expect((await admin('GET', '/__admin/users')).json().users.map((user: { id: string }) => user.id)).toEqual([
      bo.userId,
    ]);
  });
});

describe('the last admin row', () => {
  it('keeps its holder from being deleted on a server without ADMIN_SECRET, until another admin exists', async () => {
    const noSecret = await startAdminGateway(localbase, { secret: undefined });
    try {
      const last = await signUp('last-admin');
      const next = await signUp('next-admin');
      const grant = (userId: string) =>
        localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [userId]);
      const deleteFrom = (on: TestGateway, headers: Record<string, string>, who: SignedUp) =>
        on.app.inject({
          method: 'POST',
          url: `/__admin/users/${who.userId}/delete`,
          headers: { ...headers, accept: 'application/json' },
          payload: { confirm_account: who.email },
        });
      const accountsLeft = async (ids: string[]) =>
        (await localbase.database.pool.query(`select count(*)::int as n from auth.users where id = any($1)`, [ids]))
          .rows[0]?.n;

      await grant(last.userId);
      const lastCookie = adminCookieOf(await unlockWithToken(noSecret.app, last.token));
      const refused = await deleteFrom(noSecret, { cookie: lastCookie }, last);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ error: 'last_admin_account' });
      expect(refused.json().message).toMatch(/Grant admin to someone else first/);
      expect(await accountsLeft([last.userId])).toBe(1);

      // With a second admin row she can be deleted; then the second is the last.
      await grant(next.userId);
      const nextCookie = adminCookieOf(await unlockWithToken(noSecret.app, next.token));
      expect((await deleteFrom(noSecret, { cookie: nextCookie }, last)).statusCode).toBe(200);
      expect(await accountsLeft([last.userId])).toBe(0);
      expect((await deleteFrom(noSecret, { cookie: nextCookie }, next)).json().error).toBe('last_admin_account');

      // With ADMIN_SECRET the console stays unlockable, so the owner may delete the last admin.
      const deleted = await deleteFrom(gateway, { cookie }, next);
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(await accountsLeft([next.userId])).toBe(0);
    } finally {
      await noSecret.close();
    }
  });
});

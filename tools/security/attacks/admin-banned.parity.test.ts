// attack: a banned admin keeps the console. A ban ends the account's backend sessions, so her access
// token and a new console login were refused, but the console cookie she already held was rechecked
// only against her admin row or confirmed address, and only every 30 s: it went on opening
// /__admin/*, turning /__backend calls into the service role's (the auth admin API included) and
// lifting her own ban on the Users page. A deleted admin account kept its cookie the same way for up
// to 30 s. Now every request of an account session asks the backend for the account: gone or banned
// (with or without an end time, however the ban was set), its console sessions end at once, and
// lifting the ban does not bring them back (she signs in again). The owner's ADMIN_SECRET session is
// tied to no account and keeps working.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  adminCookieOf,
  signInWithSecret,
  signUp,
  startAdminGateway,
  unlockWithToken,
  type SignedUp,
} from '#gateway/test/admin-helpers.ts';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const SECRET = 'banned-admin-attack-secret-32chr';
const LISTED_EMAIL = 'listed-admin@studyhall.example';
const localbase = fileFixture(startLocalbaseStack);
const gateway = fileFixture(() => startAdminGateway(localbase, { secret: SECRET, emails: [LISTED_EMAIL] }));
let owner: string;

/** A signed-up account with an admin row, and the Cookie header of her console login. */
async function admitAdmin(email: string): Promise<{ account: SignedUp; cookie: string }> {
  const account = await signUp(gateway.app, email);
  await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [
    account.userId,
  ]);
  const unlocked = await unlockWithToken(gateway.app, account.token);
  expect(unlocked.statusCode, unlocked.body).toBe(200);
  return { account, cookie: adminCookieOf(unlocked) };
}

/** What a cookie opens: a console page, the auth admin API through the proxy, and the update controls. */
async function reach(cookie: string) {
  const consolePage = await gateway.app.inject({
    url: '/__admin/users',
    headers: { cookie, accept: 'application/json' },
  });
  const authAdmin = await gateway.app.inject({ url: '/__backend/auth/v1/admin/users', headers: { cookie } });
  const update = await gateway.app.inject({
    url: '/api/update-capabilities',
    remoteAddress: '192.168.1.77',
    headers: { cookie },
  });
  return { console: consolePage.statusCode, authAdmin: authAdmin.statusCode, canUpdate: update.json().can_update };
}

const OPEN = { console: 200, authAdmin: 200, canUpdate: true };
const SHUT = { console: 401, authAdmin: 401, canUpdate: false };

/** The Users page's ban action, with the given session. */
function banOnUsersPage(cookie: string, userId: string, duration: string) {
  return gateway.app.inject({
    method: 'POST',
    url: `/__admin/users/${userId}/ban`,
    headers: { cookie, accept: 'application/json' },
    payload: { duration },
  });
}

async function bannedUntil(userId: string): Promise<Date | null> {
  const { rows } = await localbase.database.pool.query<{ banned_until: Date | null }>(
    'select banned_until from auth.users where id = $1',
    [userId],
  );
  return rows[0]?.banned_until ?? null;
}

/**
 * A console session ended in second s refuses every cookie issued up to s (cookies carry whole
 * seconds), so a login after it must fall in a later second.
 */
async function nextWholeSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 20));
}

beforeAll(async () => {
  owner = await signInWithSecret(gateway.app, SECRET);
}, 120_000);

describe('attack: using the console after a ban', () => {
  it('a ban without an end time on the Users page ends her console at once, and she cannot lift it', async () => {
    const { account, cookie } = await admitAdmin('ban-forever@studyhall.example');
    expect(await reach(cookie)).toEqual(OPEN);

    const banned = await banOnUsersPage(owner, account.userId, '876000h');
    expect(banned.statusCode, banned.body).toBe(200);

    expect(await reach(cookie)).toEqual(SHUT);
    const liftOwnBan = await banOnUsersPage(cookie, account.userId, 'none');
    expect(liftOwnBan.statusCode).toBe(401);
    expect(liftOwnBan.json().error).toBe('admin_login_required');
    expect((await bannedUntil(account.userId))?.getTime()).toBeGreaterThan(Date.now() + 365 * 24 * 3600 * 1000);
    // Her token and a new login are refused by the backend itself.
    expect((await unlockWithToken(gateway.app, account.token)).statusCode).toBe(401);
    // The owner's secret session is tied to no account.
    expect(await reach(owner)).toEqual(OPEN);
  });

  it('a ban with an end time through the auth admin API ends her console at her next request', async () => {
    const { account, cookie } = await admitAdmin('ban-a-day@studyhall.example');
    expect(await reach(cookie)).toEqual(OPEN);

    const banned = await gateway.app.inject({
      method: 'PUT',
      url: `/__backend/auth/v1/admin/users/${account.userId}`,
      headers: { cookie: owner, 'content-type': 'application/json' },
      payload: JSON.stringify({ ban_duration: '24h' }),
    });
    expect(banned.statusCode, banned.body).toBe(200);

    expect(await reach(cookie)).toEqual(SHUT);
  });

  it('a ban set by SQL ends her console at her next request', async () => {
    const { account, cookie } = await admitAdmin('ban-by-sql@studyhall.example');
    expect(await reach(cookie)).toEqual(OPEN);

    await localbase.database.pool.query(
      `update auth.users set banned_until = now() + interval '1 hour' where id = $1`,
      [account.userId],
    );

    expect(await reach(cookie)).toEqual(SHUT);
  });

  it('a banned account whose address is in ADMIN_EMAILS loses the console too', async () => {
    const account = await signUp(gateway.app, LISTED_EMAIL);
    const confirmed = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/roles/confirm-email',
      headers: { cookie: owner, accept: 'application/json' },
      payload: { user_id: account.userId },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(201);
    const unlocked = await unlockWithToken(gateway.app, account.token);
    expect(unlocked.statusCode, unlocked.body).toBe(200);
    const cookie = adminCookieOf(unlocked);
    expect(await reach(cookie)).toEqual(OPEN);

    expect((await banOnUsersPage(owner, account.userId, '1h')).statusCode).toBe(200);

    expect(await reach(cookie)).toEqual(SHUT);
  });

  it('after the owner lifts the ban the old cookie stays ended; a new login opens the console', async () => {
    const { account, cookie } = await admitAdmin('ban-lifted@studyhall.example');
    expect((await banOnUsersPage(owner, account.userId, '24h')).statusCode).toBe(200);
    expect(await reach(cookie)).toEqual(SHUT);

    const lifted = await banOnUsersPage(owner, account.userId, 'none');
    expect(lifted.statusCode, lifted.body).toBe(200);
    expect(await bannedUntil(account.userId)).toBeNull();

    expect(await reach(cookie)).toEqual(SHUT);
    // The ban ended her backend sessions too: she signs in again, then unlocks again.
    const signedIn = await gateway.app.inject({
      method: 'POST',
      url: '/__auth/login',
      payload: { username: account.email, password: `${account.email}-password` },
    });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    await nextWholeSecond();
    const unlocked = await unlockWithToken(gateway.app, signedIn.json().session.access_token);
    expect(unlocked.statusCode, unlocked.body).toBe(200);
    expect(await reach(adminCookieOf(unlocked))).toEqual(OPEN);
    expect(await reach(cookie)).toEqual(SHUT);
  });

  it('a deleted admin account loses the console at her next request', async () => {
    const { account, cookie } = await admitAdmin('deleted-admin@studyhall.example');
    expect(await reach(cookie)).toEqual(OPEN);

    const deleted = await gateway.app.inject({
      method: 'POST',
      url: `/__admin/users/${account.userId}/delete`,
      headers: { cookie: owner, accept: 'application/json' },
      payload: { confirm_account: account.email },
    });
    expect(deleted.statusCode, deleted.body).toBe(200);

    expect(await reach(cookie)).toEqual(SHUT);
    expect(await reach(owner)).toEqual(OPEN);
  });
});

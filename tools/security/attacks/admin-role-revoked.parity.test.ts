// attack: keep the console after losing the admin role. A console cookie carries its own 12 hours,
// so an admin whose row in user_roles was revoked (on the Roles page, or deleted by SQL) went on
// opening /__admin/* and turning /__backend calls into service-role calls until it expired. Now a
// revoke on the Roles page ends the account's sessions at once, and an account session is checked
// against the login's rule again at most every 30 s, wherever its row went.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { signInWithSecret } from '#gateway/test/admin-helpers.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const SECRET = 'role-revoked-attack-secret-32chars';
const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;
let clockMs = Date.now();

async function signUp(email: string): Promise<{ token: string; userId: string }> {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/__auth/signup',
    payload: { username: email, password: `${email}-long-password` },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { token: response.json().session.access_token, userId: response.json().user.id };
}

async function grantAndUnlock(student: { token: string; userId: string }): Promise<string> {
  await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [
    student.userId,
  ]);
  const unlocked = await gateway.app.inject({
    method: 'POST',
    url: '/__admin/login',
    payload: { access_token: student.token },
  });
  expect(unlocked.statusCode, unlocked.body).toBe(200);
  const value = unlocked.cookies.find((item) => item.name === 'app_admin')?.value ?? '';
  return `app_admin=${encodeURIComponent(value)}`;
}

/** What a cookie opens: the console (200 or 401) and whether /__backend reads every backup (the service role). */
async function reach(cookie: string) {
  const consolePage = await gateway.app.inject({
    url: '/__admin/roles',
    headers: { cookie, accept: 'application/json' },
  });
  const backups = await gateway.app.inject({
    url: '/__backend/rest/v1/user_roles?select=user_id',
    headers: { cookie },
  });
  return { console: consolePage.statusCode, seesAllRoles: backups.statusCode === 200 && backups.json().length > 0 };
}

beforeAll(async () => {
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    config: { admin: { enabled: true, secret: SECRET, emails: [] } },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
    admin: { now: () => clockMs },
  });
  // The last admin row cannot be revoked: a keeper holds one so Ada's can go.
  const keeper = await signUp('keeper@studyhall.example');
  await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [
    keeper.userId,
  ]);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
});

describe('attack: using the console after the admin role was revoked', () => {
  it('a revoke on the Roles page ends the revoked admin’s open sessions at once', async () => {
    const ada = await signUp('ada-revoked@studyhall.example');
    const cookie = await grantAndUnlock(ada);
    expect(await reach(cookie)).toEqual({ console: 200, seesAllRoles: true });

    const owner = await signInWithSecret(gateway.app, SECRET);
    const revoked = await gateway.app.inject({
      method: 'DELETE',
      url: '/__admin/roles',
      headers: { cookie: owner, accept: 'application/json' },
      payload: { user_id: ada.userId, role: 'admin' },
    });
    expect(revoked.statusCode, revoked.body).toBe(200);

    expect(await reach(cookie)).toEqual({ console: 401, seesAllRoles: false });
    // The owner's own session is untouched, and a fresh login of Ada is refused: she is no admin.
    expect((await reach(owner)).console).toBe(200);
    const again = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/login',
      payload: { access_token: ada.token },
    });
    expect(again.statusCode).toBe(403);
  });

  it('a row deleted behind the console’s back ends the sessions at the next check, within 30 s', async () => {
    const bo = await signUp('bo-revoked@studyhall.example');
    const cookie = await grantAndUnlock(bo);
    expect(await reach(cookie)).toEqual({ console: 200, seesAllRoles: true });

    await localbase.database.pool.query(`delete from public.user_roles where user_id = $1`, [bo.userId]);
    // Within the recheck interval the standing confirmed at login still counts.
    clockMs += 10_000;
    expect((await reach(cookie)).console).toBe(200);
    clockMs += 25_000;
    expect(await reach(cookie)).toEqual({ console: 401, seesAllRoles: false });
    // Ended for good, even with the row back: a new login is needed.
    await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [
      bo.userId,
    ]);
    expect((await reach(cookie)).console).toBe(401);
  });

  it('an admin who keeps the role keeps the console across rechecks', async () => {
    const cy = await signUp('cy-kept@studyhall.example');
    const cookie = await grantAndUnlock(cy);
    for (let round = 0; round < 3; round += 1) {
      clockMs += 31_000;
      expect(await reach(cookie)).toEqual({ console: 200, seesAllRoles: true });
    }
  });
});

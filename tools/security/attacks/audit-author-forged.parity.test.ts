// attack: name someone else as the author of an audit row. The database keeps the console's admin on
// every row the service role writes, read from the request header `x-studyhall-console-admin`. The
// proxy forwarded that header as the caller sent it, so an admin working through /__backend could
// have her actions recorded under another admin's name, or the owner's (`secret`). Now the gateway
// drops any such header and names the admin of the verified session itself, on every request that
// reaches the backend as the service role.
import { beforeAll, describe, expect, it } from 'vitest';
import { accountSubject } from '#gateway/src/admin/admin-cookie.ts';
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

const SECRET = 'forged-author-attack-secret-32ch';
const HEADER = 'x-studyhall-console-admin';
const localbase = fileFixture(startLocalbaseStack);
const gateway = fileFixture(() => startAdminGateway(localbase, { secret: SECRET }));
let owner: string;
let mallory: { account: SignedUp; cookie: string };
let victim: SignedUp;

async function admitAdmin(email: string): Promise<{ account: SignedUp; cookie: string }> {
  const account = await signUp(gateway.app, email);
  await localbase.database.pool.query(`insert into public.user_roles (user_id, role) values ($1, 'admin')`, [
    account.userId,
  ]);
  const unlocked = await unlockWithToken(gateway.app, account.token);
  expect(unlocked.statusCode, unlocked.body).toBe(200);
  return { account, cookie: adminCookieOf(unlocked) };
}

/** An audited action through the proxy as the service role (the console's own RPC for its actions). */
async function recordThroughProxy(
  cookie: string,
  action: string,
  options: { header?: string; detail?: Record<string, unknown> } = {},
) {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/__backend/rest/v1/rpc/admin_audit_console_action',
    headers: {
      cookie,
      'content-type': 'application/json',
      ...(options.header === undefined ? {} : { [HEADER]: options.header }),
    },
    payload: JSON.stringify({
      p_action: `console:${action}`,
      p_target_user_id: victim.userId,
      p_detail: options.detail ?? {},
    }),
  });
  expect(response.statusCode, response.body).toBe(204);
}

/** Who the audit log names as the console's admin for the newest row of an action. */
async function authorOf(action: string): Promise<unknown> {
  const { rows } = await localbase.database.pool.query<{ detail: Record<string, unknown> }>(
    `select detail from public.admin_audit_log where action = $1 order by id desc limit 1`,
    [`console:${action}`],
  );
  expect(rows).toHaveLength(1);
  return rows[0]?.detail.console_admin;
}

beforeAll(async () => {
  owner = await signInWithSecret(gateway.app, SECRET);
  mallory = await admitAdmin('mallory-admin@studyhall.example');
  victim = await signUp(gateway.app, 'victim-admin@studyhall.example');
}, 120_000);

describe('attack: naming another author in the audit log through the proxy', () => {
  it('an admin who sends the header naming another admin is recorded under her own name', async () => {
    await recordThroughProxy(mallory.cookie, 'forged_other_admin', {
      header: accountSubject(victim.userId, victim.email),
    });
    expect(await authorOf('forged_other_admin')).toBe(accountSubject(mallory.account.userId, mallory.account.email));
  });

  it('an admin who sends the header naming the owner is recorded under her own name', async () => {
    await recordThroughProxy(mallory.cookie, 'forged_owner', { header: 'secret' });
    expect(await authorOf('forged_owner')).toBe(accountSubject(mallory.account.userId, mallory.account.email));
  });

  it('an admin who names another author in the detail instead is recorded under her own name', async () => {
    await recordThroughProxy(mallory.cookie, 'forged_in_detail', {
      detail: { console_admin: accountSubject(victim.userId, victim.email) },
    });
    expect(await authorOf('forged_in_detail')).toBe(accountSubject(mallory.account.userId, mallory.account.email));
  });

  it('the owner’s requests through the proxy are recorded as the owner’s, whatever header they carry', async () => {
    await recordThroughProxy(owner, 'owner_named', {
      header: accountSubject(mallory.account.userId, mallory.account.email),
    });
    expect(await authorOf('owner_named')).toBe('secret');
  });

  it('a student cannot reach the service role with the header, and it names nobody on her own rows', async () => {
    const student = await signUp(gateway.app, 'student-forger@studyhall.example');
    const refused = await gateway.app.inject({
      method: 'POST',
      url: '/__backend/rest/v1/rpc/admin_audit_console_action',
      headers: {
        apikey: localbase.anonKey,
        authorization: `Bearer ${student.token}`,
        'content-type': 'application/json',
        [HEADER]: 'secret',
      },
      payload: JSON.stringify({ p_action: 'console:student_forged', p_target_user_id: victim.userId }),
    });
    expect(refused.statusCode).toBe(403);
    const { rows } = await localbase.database.pool.query(
      `select 1 from public.admin_audit_log where action = 'console:student_forged'`,
    );
    expect(rows).toEqual([]);
  });
});

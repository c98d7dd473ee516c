// The console's operations against a real localbase: sync diagnostics and backup repair (a dry run
// changes nothing, a real run makes the richest backup current and can be undone), storage cleanup
// (apply deletes exactly the preview, nothing without confirm), admin roles (never the last), and
// the browser proof's report (run token only, single use, 10 minutes, the account deleted).
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

const SECRET = 'operations-test-admin-secret';
// The smallest valid PNG: 1x1, transparent.
const PNG = `data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='}`;

let localbase: Localbase;
let gateway: TestGateway;
let cookie: string;
let clockOffsetMs = 0;

type Student = SignedUp;

async function ownerQuery<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await localbase.database.pool.query(sql, params)).rows as T[];
}

const signUp = (name: string): Promise<Student> =>
  signUpThrough(gateway.app, `${name}@example.com`, `${name}-password-1`);

async function asStudent(student: Student, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) {
  const response = await gateway.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${student.token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.body === '' ? null : response.json();
}

async function admin(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) {
  return gateway.app.inject({
    method,
    url,
    headers: { cookie },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** Everything a repair or cleanup could touch, as text: equal text means byte-identical data. */
async function dataState(): Promise<string> {
  const backups = await ownerQuery(
    'select id, user_id, source, app_version, payload::text, richness, size_bytes, created_at from public.user_backups order by id',
  );
  const archive = await ownerQuery('select * from public.user_backup_archive order by id');
  const objects = await ownerQuery(
    'select id, bucket_id, name, version, metadata::text, updated_at from storage.objects order by id',
  );
  return JSON.stringify({ backups, archive, objects });
}

const payloadWith = (items: number) => ({
  sessions: Array.from({ length: items }, (_, index) => ({ minutes: index + 1 })),
});

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  gateway = await startAdminGateway(
    localbase,
    { secret: SECRET },
    { admin: { now: () => Date.now() + clockOffsetMs } },
  );
  cookie = await signInWithSecret(gateway.app, SECRET);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await localbase?.close();
});

describe('sync and backup repair', () => {
  let ada: Student;
  let bob: Student;

  beforeAll(async () => {
    ada = await signUp('ada');
    bob = await signUp('bob');
    // Ada: a rich backup, then (a reinstall) a poor one that is now her latest.
    await asStudent(ada, 'POST', '/__auth/backup', { payload: payloadWith(9) });
    await asStudent(ada, 'POST', '/__auth/backup', { payload: payloadWith(1) });
    // Bob: a rich snapshot whose row he deleted (the file remains), then a poor backup.
    const snapshot = await asStudent(bob, 'POST', '/__auth/snapshot', { payload: payloadWith(12) });
    await asStudent(bob, 'DELETE', `/__backend/rest/v1/user_backups?id=eq.${snapshot.backup.id}`);
    await asStudent(bob, 'POST', '/__auth/backup', { payload: payloadWith(2) });
  });

  it('lists every candidate with its richness and date, what best picks and why', async () => {
    const sync = (await admin('GET', '/__admin/sync')).json();
    const adaView = sync.users.find((user: { email: string }) => user.email === ada.email);
    expect(adaView.candidates.map((item: { kind: string; richness: number }) => [item.kind, item.richness])).toEqual([
      ['row', 9],
      ['row', 1],
    ]);
    expect(adaView.best.richness).toBe(9);
    expect(adaView.current.richness).toBe(1);
    expect(adaView.repair_needed).toBe(true);
    expect(adaView.explanation).toMatch(
      /^\/__auth\/backup\/best returns row \w{8} \(richness 9, .*\): the richest of 2 backup rows, because richness wins over recency\./,
    );
    const bobView = sync.users.find((user: { email: string }) => user.email === bob.email);
    expect(bobView.winner).toMatchObject({ kind: 'file', richness: 12 });
    expect(bobView.best).toMatchObject({ kind: 'row', richness: 2 });
    expect(bobView.explanation).toContain('is richer than every row, and /__auth/backup/best reads only rows');
    // What /__auth/backup/best returns is exactly the "best" the page names.
    const best = await asStudent(ada, 'GET', '/__auth/backup/best');
    expect(best.backup.id).toBe(adaView.best.id);
  });

  it('leaves the data byte-identical on a dry run, and reports exactly what a real run would change', async () => {
    const before = await dataState();
    const response = await admin('POST', '/__admin/sync/repair-user-backup', { user_id: ada.userId, dry_run: true });
    expect(response.statusCode, response.body).toBe(200);
    const plan = response.json();
    expect(plan).toMatchObject({ dry_run: true, archived_backup_id: null, new_backup_id: null });
    expect(
      plan.changes.map((change: { action: string; backup: { richness: number } }) => [
        change.action,
        change.backup.richness,
      ]),
    ).toEqual([
      ['write', 9],
      ['archive', 1],
    ]);
    expect(await dataState()).toBe(before);
  });

  it('makes the richest backup current on a real run, and the archived one can be restored', async () => {
    const before = await dataState();
    const beforeRows = await ownerQuery<{ id: string }>(
      'select id from public.user_backups where user_id = $1 order by id',
      [ada.userId],
    );
    const response = await admin('POST', '/__admin/sync/repair-user-backup', { user_id: ada.userId, dry_run: false });
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json();
    expect(result.dry_run).toBe(false);
    expect(result.archived_backup_id).toEqual(expect.any(String));
    expect(result.restore).toEqual({
      method: 'POST',
      path: '/__admin/sync/restore-archived-backup',
      body: { archive_id: result.archived_backup_id },
      text: expect.stringContaining('To undo, POST /__admin/sync/restore-archived-backup'),
    });
    const latest = await asStudent(ada, 'GET', '/__auth/backup/latest');
    expect(latest.backup.payload).toEqual(payloadWith(9));
    expect(latest.backup.source).toBe('restore');
    expect((await asStudent(ada, 'GET', '/__auth/backup/best')).backup.payload).toEqual(payloadWith(9));
    const after = (await admin('GET', `/__admin/sync?user_id=${ada.userId}`)).json();
    expect(after.users[0].repair_needed).toBe(false);
    expect(after.archive.map((item: { id: string }) => item.id)).toEqual([result.archived_backup_id]);

    const restored = await admin('POST', '/__admin/sync/restore-archived-backup', {
      archive_id: result.archived_backup_id,
    });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toMatchObject({ ok: true, removed_backup_id: result.new_backup_id });
    expect(await dataState()).toBe(before);
    expect(await ownerQuery('select id from public.user_backups where user_id = $1 order by id', [ada.userId])).toEqual(
      beforeRows,
    );
    const again = await admin('POST', '/__admin/sync/restore-archived-backup', {
      archive_id: result.archived_backup_id,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toBe('archive_not_found');
  });

  it('makes a snapshot file current when it is the richest candidate', async () => {
    const result = (
      await admin('POST', '/__admin/sync/repair-user-backup', { user_id: bob.userId, dry_run: false })
    ).json();
    expect(result.changes[0].backup.kind).toBe('file');
    expect((await asStudent(bob, 'GET', '/__auth/backup/latest')).backup.payload).toEqual(payloadWith(12));
    const nothing = (
      await admin('POST', '/__admin/sync/repair-user-backup', { user_id: bob.userId, dry_run: false })
    ).json();
    expect(nothing).toMatchObject({ changes: [], explanation: expect.stringContaining('Nothing to repair.') });
  });

  it('asks a form for confirmation before a real run', async () => {
    const before = await dataState();
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/sync/repair-user-backup',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: `user_id=${ada.userId}&dry_run=false`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Tick the box that confirms the repair; nothing was written.');
    expect(await dataState()).toBe(before);
  });
});

describe('storage cleanup', () => {
  let carol: Student;
  const objectsOf = async (userId: string) =>
    (
      await ownerQuery<{ bucket_id: string; name: string }>(
        `select bucket_id, name from storage.objects where name like $1 || '/%' order by bucket_id, name`,
        [userId],
      )
    ).map((row) => `${row.bucket_id}/${row.name}`);

  beforeAll(async () => {
    carol = await signUp('carol');
    for (let index = 0; index < 3; index++) await asStudent(carol, 'POST', '/__auth/profile', { avatar_url: PNG });
    for (let index = 0; index < 7; index++)
      await asStudent(carol, 'POST', '/__auth/snapshot', { payload: payloadWith(index + 1) });
  });

  it('previews the prunable objects by the stated rule, and deletes exactly those', async () => {
    const page = (await admin('GET', '/__admin/storage')).json();
    expect(page.rule).toContain('except the one their profile shows and the newest one');
    const mine = page.objects.filter((object: { name: string }) => object.name.startsWith(carol.userId));
    const prunable = mine
      .filter((object: { prunable: string | null }) => object.prunable)
      .map((object: { bucket: string; name: string }) => `${object.bucket}/${object.name}`)
      .sort();
    const avatars = mine
      .filter((object: { bucket: string }) => object.bucket === 'avatars')
      .map((object: { name: string }) => object.name)
      .sort();
    const snapshots = mine
      .filter((object: { bucket: string }) => object.bucket === 'backups')
      .map((object: { name: string }) => object.name)
      .sort();
    expect(avatars).toHaveLength(3);
    expect(snapshots).toHaveLength(7);
    const { profile } = await asStudent(carol, 'GET', '/__auth/profile');
    expect(String(profile.avatar_url)).toContain(avatars[2]);
    expect(prunable).toEqual(
      [
        ...avatars.slice(0, 2).map((name: string) => `avatars/${name}`),
        ...snapshots.slice(0, 2).map((name: string) => `backups/${name}`),
      ].sort(),
    );

    const preview = (await admin('POST', '/__admin/storage/cleanup-preview', {})).json();
    expect(preview.preview_id).toMatch(/^[\w-]{22}$/);
    expect(
      preview.objects.map((object: { bucket: string; name: string }) => `${object.bucket}/${object.name}`).sort(),
    ).toEqual(prunable);
    expect(preview.bytes).toBe(
      preview.objects.reduce((sum: number, object: { bytes: number }) => sum + object.bytes, 0),
    );

    const before = await dataState();
    for (const body of [
      { preview_id: preview.preview_id },
      { preview_id: preview.preview_id, confirm: false },
      { preview_id: preview.preview_id, confirm: 'yes please' },
    ]) {
      const refused = await admin('POST', '/__admin/storage/cleanup-apply', body);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toMatch(/^(confirmation_required|invalid_request)$/);
      expect(await dataState()).toBe(before);
    }

    // Stored after the preview: a newer avatar (which makes the one shown until now prunable too).
    await asStudent(carol, 'POST', '/__auth/profile', { avatar_url: PNG });
    const everythingBefore = await objectsOf(carol.userId);
    const applied = await admin('POST', '/__admin/storage/cleanup-apply', {
      preview_id: preview.preview_id,
      confirm: true,
    });
    expect(applied.statusCode, applied.body).toBe(200);
    expect(
      applied
        .json()
        .deleted.map((object: { bucket: string; name: string }) => `${object.bucket}/${object.name}`)
        .sort(),
    ).toEqual(prunable);
    expect(applied.json().skipped).toEqual([]);
    expect(await objectsOf(carol.userId)).toEqual(everythingBefore.filter((name) => !prunable.includes(name)));

    const reused = await admin('POST', '/__admin/storage/cleanup-apply', {
      preview_id: preview.preview_id,
      confirm: true,
    });
    expect(reused.statusCode).toBe(404);
    expect(reused.json().error).toBe('preview_not_found');
  });

  it('leaves alone an object replaced since the preview, and refuses an expired preview', async () => {
    await asStudent(carol, 'POST', '/__auth/profile', { avatar_url: PNG });
    const preview = (await admin('POST', '/__admin/storage/cleanup-preview', {})).json();
    const target = preview.objects.find((object: { bucket: string }) => object.bucket === 'avatars');
    expect(target).toBeDefined();
    // Replaced in place (same name, new version) after the preview.
    await fetch(`${localbase.url}/storage/v1/object/avatars/${target.name}`, {
      method: 'PUT',
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${carol.token}`, 'content-type': 'image/png' },
      body: Buffer.from(PNG.split(',')[1] ?? '', 'base64'),
    });
    const applied = (
      await admin('POST', '/__admin/storage/cleanup-apply', { preview_id: preview.preview_id, confirm: true })
    ).json();
    expect(applied.skipped).toEqual([{ bucket: 'avatars', name: target.name, reason: 'replaced since the preview' }]);
    expect(await objectsOf(carol.userId)).toContain(`avatars/${target.name}`);

    const stale = (await admin('POST', '/__admin/storage/cleanup-preview', {})).json();
    clockOffsetMs = 31 * 60 * 1000;
    try {
      const expired = await admin('POST', '/__admin/storage/cleanup-apply', {
        preview_id: stale.preview_id,
        confirm: true,
      });
      expect(expired.statusCode).toBe(410);
      expect(expired.json().error).toBe('preview_expired');
    } finally {
      clockOffsetMs = 0;
    }
  });
});

describe('admin roles', () => {
  let dora: Student;
  let eve: Student;

  beforeAll(async () => {
    dora = await signUp('dora');
    eve = await signUp('eve');
  });

  it('grants by e-mail and by id, lists, and revokes: the owner any row, an admin never her own', async () => {
    const byEmail = await admin('POST', '/__admin/roles', { email: 'DORA@example.com', role: 'admin' });
    expect(byEmail.statusCode, byEmail.body).toBe(201);
    expect(byEmail.json().granted).toEqual({ user_id: dora.userId, email: dora.email, role: 'admin', created: true });
    const twice = await admin('POST', '/__admin/roles', { email: dora.email, role: 'admin' });
    expect(twice.statusCode).toBe(200);
    expect(twice.json().granted.created).toBe(false);
    expect((await admin('POST', '/__admin/roles', { user_id: eve.userId, role: 'admin' })).statusCode).toBe(201);
    const list = (await admin('GET', '/__admin/roles')).json();
    expect(list.admins.map((row: { email: string }) => row.email)).toEqual([dora.email, eve.email]);

    const revoked = await admin('DELETE', '/__admin/roles', { user_id: eve.userId, role: 'admin' });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().admins.map((row: { email: string }) => row.email)).toEqual([dora.email]);

    // Dora, signed in with her account, may not revoke the row she is signed in with.
    const doraCookie = adminCookieOf(await unlockWithToken(gateway.app, dora.token));
    const own = await gateway.app.inject({
      method: 'DELETE',
      url: '/__admin/roles',
      headers: { cookie: doraCookie },
      payload: { user_id: dora.userId, role: 'admin' },
    });
    expect(own.statusCode).toBe(409);
    expect(own.json()).toMatchObject({
      error: 'own_admin_row',
      message: expect.stringMatching(/^This is your own admin row/),
    });
    const page = await gateway.app.inject({
      url: '/__admin/roles',
      headers: { cookie: doraCookie, accept: 'text/html' },
    });
    expect(page.body).toContain('This is your own admin row: you signed in with it');
    expect(page.body).not.toContain('Revoke admin from');
    expect(await ownerQuery(`select user_id from public.user_roles where role = 'admin'`)).toEqual([
      { user_id: dora.userId },
    ]);

    // The owner (ADMIN_SECRET) revokes it, the last admin row though it is: a mistaken grant is undone.
    const ownerPage = await admin('GET', '/__admin/roles');
    expect(ownerPage.statusCode).toBe(200);
    const last = await admin('DELETE', '/__admin/roles', { email: dora.email, role: 'admin' });
    expect(last.statusCode, last.body).toBe(200);
    expect(last.json().admins).toEqual([]);
    expect(await ownerQuery(`select user_id from public.user_roles where role = 'admin'`)).toEqual([]);
    // Dora's console session ended with her row.
    expect((await gateway.app.inject({ url: '/__admin/roles', headers: { cookie: doraCookie } })).statusCode).toBe(401);

    // Each grant and revoke is in the audit log once, naming the console's admin.
    expect(
      await ownerQuery(
        `select action, target_user_id, detail ->> 'console_admin' as admin from public.admin_audit_log
         where action in ('grant_role', 'revoke_role') order by id`,
      ),
    ).toEqual([
      { action: 'grant_role', target_user_id: dora.userId, admin: 'secret' },
      { action: 'grant_role', target_user_id: eve.userId, admin: 'secret' },
      { action: 'revoke_role', target_user_id: eve.userId, admin: 'secret' },
      { action: 'revoke_role', target_user_id: dora.userId, admin: 'secret' },
    ]);
    expect((await admin('POST', '/__admin/roles', { user_id: dora.userId, role: 'admin' })).statusCode).toBe(201);
  });

  it('refuses unknown accounts, other roles and a revoke form without confirmation', async () => {
    expect((await admin('POST', '/__admin/roles', { email: 'nobody@example.com', role: 'admin' })).json().error).toBe(
      'user_not_found',
    );
    expect((await admin('POST', '/__admin/roles', { user_id: eve.userId, role: 'super_admin' })).statusCode).toBe(400);
    expect((await admin('DELETE', '/__admin/roles', { user_id: eve.userId, role: 'admin' })).json().error).toBe(
      'role_not_found',
    );
    const form = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/roles',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: `_method=DELETE&user_id=${dora.userId}&role=admin`,
    });
    expect(form.statusCode).toBe(400);
    const granted = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/roles',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: `account=${encodeURIComponent(eve.email)}&role=admin`,
    });
    expect(granted.statusCode).toBe(201);
    expect(granted.body).toContain('eve@example.com can now unlock the console.');
  });
});

describe('the browser proof report', () => {
  const report = (token: string, ok = true) => ({
    run_token: token,
    user_agent: 'test',
    checks: {
      service_worker: { ok, registered: ok, controlled: ok, scope: 'http://localhost/', detail: 'as claimed' },
      indexeddb: { ok, kept_value: ok, persisted: false, detail: 'as claimed' },
      login: { ok, status: 200, user_matches: ok, detail: 'as claimed' },
    },
  });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    gateway.app.inject({ method: 'POST', url: '/__admin/browser-proof-result', headers, payload: body as object });
  const startRun = async () =>
    (await admin('POST', '/__admin/browser-proof')).json().run as { token: string; run_id: string; expires_at: string };
  const accountExists = async (id: string) =>
    (await ownerQuery('select 1 from auth.users where id = $1', [id])).length === 1;

  it('issues a 32-byte base64url token that a report spends without any cookie; the account is deleted', async () => {
    // Before any report, viewing the page starts a run.
    expect((await admin('GET', '/__admin/browser-proof')).json().run).toMatchObject({ token: expect.any(String) });
    const run = await startRun();
    expect(Buffer.from(run.token, 'base64url')).toHaveLength(32);
    expect(Date.parse(run.expires_at) - Date.now()).toBeGreaterThan(9 * 60 * 1000);
    const account = (await admin('POST', '/__admin/browser-proof/account', { run_token: run.token })).json();
    expect(await accountExists(account.user_id)).toBe(true);
    const login = await gateway.app.inject({
      method: 'POST',
      url: '/__auth/login',
      payload: { username: account.email, password: account.password },
    });
    expect(login.statusCode).toBe(200);

    const recorded = await post(report(run.token));
    expect(recorded.statusCode, recorded.body).toBe(201);
    expect(recorded.json()).toMatchObject({ run_id: run.run_id, ok: true, subject: 'secret' });
    expect(
      recorded.json().checks.find((item: { name: string }) => item.name === 'login').facts.backend_confirms_sign_in,
    ).toBe(true);
    expect(await accountExists(account.user_id)).toBe(false);
    // A check, not an action on anyone: its account's deletion is not in the audit log.
    expect(
      await ownerQuery('select action from public.admin_audit_log where target_user_id = $1', [account.user_id]),
    ).toEqual([]);

    const reused = await post(report(run.token));
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error).toBe('run_token_used');
    // Viewing the page now shows that report rather than starting another run.
    expect((await admin('GET', '/__admin/browser-proof')).json()).toMatchObject({
      run: null,
      last_reports: [expect.objectContaining({ run_id: run.run_id })],
    });
    expect((await admin('GET', '/__admin/verify')).json().browser_proof.last_report.run_id).toBe(run.run_id);
  });

  it("does not take the browser's word for the login: without a real sign-in the check fails", async () => {
    const run = await startRun();
    await admin('POST', '/__admin/browser-proof/account', { run_token: run.token });
    const recorded = (await post(report(run.token))).json();
    expect(recorded.ok).toBe(false);
    expect(recorded.checks.find((item: { name: string }) => item.name === 'login')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('does not confirm the sign-in'),
    });
  });

  it('refuses an unknown or expired token, and deletes the account of an expired run', async () => {
    const unknown = await post(report(Buffer.alloc(32, 7).toString('base64url')));
    expect(unknown.statusCode).toBe(403);
    expect(unknown.json().error).toBe('run_token_invalid');
    const run = await startRun();
    const account = (await admin('POST', '/__admin/browser-proof/account', { run_token: run.token })).json();
    clockOffsetMs = 10 * 60 * 1000 + 1000;
    try {
      const expired = await post(report(run.token));
      expect(expired.statusCode).toBe(410);
      expect(expired.json().error).toBe('run_token_expired');
      expect(await accountExists(account.user_id)).toBe(false);
      expect((await admin('POST', '/__admin/browser-proof/account', { run_token: run.token })).statusCode).toBe(410);
    } finally {
      clockOffsetMs = 0;
    }
  });
});

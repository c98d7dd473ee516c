// The console's sessions page against a real localbase: an admin finds a student by e-mail or
// handle, sees her sessions newest first and voids one with a reason, which counts nowhere at once;
// without the admin cookie, from another origin or without a reason nothing is voided.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { signInWithSecret, signUp, startAdminGateway, type SignedUp } from './admin-helpers.ts';
import type { TestGateway } from './helpers.ts';

const SECRET = 'sessions-test-admin-secret';
const MINUTE = 60_000;
const FORM = 'application/x-www-form-urlencoded';

let localbase: Localbase;
let gateway: TestGateway;
let cookie: string;
let student: SignedUp;
let sessionIds: string[];

async function ownerQuery<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await localbase.database.pool.query(sql, params)).rows as T[];
}

async function record(startedAt: number, minutes: number, subject: string, correct = 0): Promise<string> {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/__backend/rest/v1/rpc/record_study_session',
    headers: { authorization: `Bearer ${student.token}` },
    payload: {
      p_started_at: new Date(startedAt).toISOString(),
      p_minutes: minutes,
      p_subject_name: subject,
      p_correct: correct,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as string;
}

function voidForm(sessionId: string, reason: string | undefined, headers: Record<string, string> = { cookie }) {
  const form = new URLSearchParams({ session_id: sessionId, account: student.email });
  if (reason !== undefined) form.set('reason', reason);
  return gateway.app.inject({
    method: 'POST',
    url: '/__admin/sessions/void',
    headers: { 'content-type': FORM, accept: 'text/html', ...headers },
    payload: form.toString(),
  });
}

async function voidedCount(): Promise<number> {
  const rows = await ownerQuery<{ n: number }>(
    'select count(*)::int as n from public.study_sessions where user_id = $1 and voided_at is not null',
    [student.userId],
  );
  return rows[0]?.n ?? -1;
}

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  gateway = await startAdminGateway(localbase, { secret: SECRET });
  cookie = await signInWithSecret(gateway.app, SECRET);
  student = await signUp(gateway.app, 'vera@example.com');
  await ownerQuery(`update public.user_profiles set handle = 'vera_h' where user_id = $1`, [student.userId]);
  // Another student whose handle `vera_h` matches as an ilike pattern (`_` is any one character).
  const other = await signUp(gateway.app, 'other@example.com');
  await ownerQuery(`update public.user_profiles set handle = 'veraxh' where user_id = $1`, [other.userId]);
  const now = Date.now();
  sessionIds = [
    await record(now - 300 * MINUTE, 40, 'Maths', 5),
    await record(now - 200 * MINUTE, 30, 'Physics', 2),
    await record(now - 100 * MINUTE, 20, 'Biology'),
  ];
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await localbase?.close();
});

describe('the sessions page', () => {
  it('lists a student found by e-mail, newest first, with subject, minutes, counts and state', async () => {
    const response = await gateway.app.inject({
      method: 'GET',
      url: `/__admin/sessions?account=${encodeURIComponent(student.email)}`,
      headers: { cookie },
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.student).toEqual({ user_id: student.userId, email: student.email, handle: 'vera_h' });
    expect(body.sessions.map((session: { id: string }) => session.id)).toEqual([...sessionIds].reverse());
    expect(body.sessions[2]).toMatchObject({ subject_name: 'Maths', minutes: 40, correct: 5, voided_at: null });
  });

  it('finds her by handle too, with or without the @, in any case', async () => {
    for (const typed of ['vera_h', '@Vera_H']) {
      const response = await gateway.app.inject({
        method: 'GET',
        url: `/__admin/sessions?account=${encodeURIComponent(typed)}`,
        headers: { cookie },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().student.user_id).toBe(student.userId);
    }
    const unknown = await gateway.app.inject({
      method: 'GET',
      url: '/__admin/sessions?account=nobody',
      headers: { cookie },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('user_not_found');
    const typo = await gateway.app.inject({
      method: 'GET',
      url: '/__admin/sessions?account=a%20b',
      headers: { cookie },
    });
    expect(typo.statusCode).toBe(400);
    expect(typo.json().error).toBe('invalid_account');
  });

  it('renders a void form with a required reason on each counted session', async () => {
    const response = await gateway.app.inject({
      method: 'GET',
      url: `/__admin/sessions?account=${encodeURIComponent(student.email)}`,
      headers: { cookie, accept: 'text/html' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<h1>Study sessions</h1>');
    expect(response.body.match(/action="\/__admin\/sessions\/void"/g)).toHaveLength(3);
    expect(response.body).toContain('name="reason" maxlength="500" required');
  });
});

describe('voiding a session', () => {
  it('is refused without the admin cookie, with a student token, and from another origin', async () => {
    const anonymous = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/sessions/void',
      payload: { session_id: sessionIds[0], reason: 'no cookie' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toBe('admin_login_required');
    const asStudent = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/sessions/void',
      headers: { authorization: `Bearer ${student.token}` },
      payload: { session_id: sessionIds[0], reason: 'my own' },
    });
    expect(asStudent.statusCode).toBe(401);
    const page = await gateway.app.inject({
      method: 'GET',
      url: '/__admin/sessions',
      headers: { accept: 'text/html' },
    });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toMatch(/^\/__admin\/login\?next=/);
    const crossOrigin = await voidForm(sessionIds[0] ?? '', 'from elsewhere', {
      cookie,
      origin: 'https://elsewhere.example',
    });
    expect(crossOrigin.statusCode).toBe(403);
    expect(await voidedCount()).toBe(0);
  });

  it('without a reason (missing or blank) says so clearly and voids nothing', async () => {
    for (const reason of [undefined, '', '   ']) {
      const response = await voidForm(sessionIds[0] ?? '', reason);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('Give a reason for the void, 1 to 500 characters');
      expect(response.body).toContain('<code>reason_required</code>');
    }
    const json = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/sessions/void',
      headers: { cookie },
      payload: { session_id: sessionIds[0] },
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toBe('reason_required');
    expect(await voidedCount()).toBe(0);
  });

  it('voids with a reason, records the admin, and her statistics drop it at once', async () => {
    const response = await voidForm(sessionIds[0] ?? '', 'Timer left running overnight');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).toContain('banner-ok');
    expect(response.body).toMatch(/Voided the \d+-minute session of \d{4}-\d\d-\d\d: it no longer counts/);
    expect(response.body).toContain('by the owner (admin secret): Timer left running overnight');
    const [row] = await ownerQuery<{ voided_by: string; void_reason: string }>(
      'select voided_by, void_reason from public.study_sessions where id = $1',
      [sessionIds[0]],
    );
    expect(row).toEqual({ voided_by: 'secret', void_reason: 'Timer left running overnight' });
    // The database's audit log has the void once, naming the owner's console.
    expect(
      await ownerQuery(
        `select action, target_user_id, detail ->> 'reason' as reason, detail ->> 'console_admin' as admin
         from public.admin_audit_log where target_table = 'study_sessions'`,
      ),
    ).toEqual([
      {
        action: 'void_session',
        target_user_id: student.userId,
        reason: 'Timer left running overnight',
        admin: 'secret',
      },
    ]);
    const [summary] = await ownerQuery<{ total_minutes: number; total_sessions: number }>(
      'select total_minutes, total_sessions from public.user_stats_summary where user_id = $1',
      [student.userId],
    );
    expect(summary).toEqual({ total_minutes: 50, total_sessions: 2 });
    // She sees it on her own row.
    const own = await gateway.app.inject({
      method: 'GET',
      url: `/__backend/rest/v1/study_sessions?select=id,voided_at,void_reason&id=eq.${sessionIds[0]}`,
      headers: { authorization: `Bearer ${student.token}` },
    });
    expect(own.json()).toEqual([
      { id: sessionIds[0], voided_at: expect.any(String), void_reason: 'Timer left running overnight' },
    ]);
  });

  it('refuses a second void of the same session and an unknown session, with their own codes', async () => {
    const again = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/sessions/void',
      headers: { cookie },
      payload: { session_id: sessionIds[0], reason: 'again' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('already_voided');
    const unknown = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/sessions/void',
      headers: { cookie },
      payload: { session_id: 'c0000000-0000-4000-8000-000000000000', reason: 'gone' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('session_not_found');
    expect(await voidedCount()).toBe(1);
  });
});

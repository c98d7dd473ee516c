// The console's Reports and Audit log pages against a real localbase: Bo reports Cy's message in
// Ada's group; the admin sees it with the chat around it, resolves it by deleting the message; the
// message is a tombstone for everyone, Bo's report reads as handled, and the audit log names the
// admin and the action. Only an admin session reaches the pages; a student cannot resolve.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAttackStack, type AttackStack, type Student } from '#tools/security/attacks/attack-stack.ts';
import { signInWithSecret, startAdminGateway } from './admin-helpers.ts';
import type { TestGateway } from './helpers.ts';

const SECRET = 'reports-page-test-admin-secret';
let stack: AttackStack;
let consoleGateway: TestGateway;
let cookie: string;
let ada: Student;
let bo: Student;
let cy: Student;
let groupId: string;
let reportedId: string;

function admin(method: 'GET' | 'POST', url: string, payload?: unknown, accept = 'application/json') {
  return consoleGateway.app.inject({
    method,
    url,
    headers: { cookie, accept },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function say(student: Student, content: string): Promise<string> {
  const sent = await stack.backend(student, 'POST', '/rest/v1/rpc/community_send_group_message', {
    p_group_id: groupId,
    p_content: content,
  });
  expect(sent.statusCode, sent.body).toBe(200);
  const [row] = await stack.owner<{ id: string }>(
    `select id from public.group_chat_messages where group_id = $1 and content = $2`,
    [groupId, content],
  );
  return row?.id as string;
}

beforeAll(async () => {
  stack = await startAttackStack();
  consoleGateway = await startAdminGateway(stack.localbase, { secret: SECRET });
  cookie = await signInWithSecret(consoleGateway.app, SECRET);
  [ada, bo, cy] = [await stack.signUp('ada-rep'), await stack.signUp('bo-rep'), await stack.signUp('cy-rep')];
  const created = await stack.backend(
    ada,
    'POST',
    '/rest/v1/groups',
    { name: 'Chemistry club', join_policy: 'open', created_by: ada.id },
    { prefer: 'return=representation' },
  );
  expect(created.statusCode, created.body).toBe(201);
  groupId = created.json()[0].id;
  for (const student of [bo, cy])
    expect(
      (await stack.backend(student, 'POST', '/rest/v1/rpc/community_join_group', { p_group_id: groupId })).statusCode,
    ).toBe(200);
  await say(ada, 'Who has the notes for chapter 4?');
  reportedId = await say(cy, 'Bo is an idiot and everyone knows it');
  await say(bo, 'That is not kind.');
  const reported = await stack.backend(bo, 'POST', '/rest/v1/rpc/community_submit_report', {
    p_target_type: 'message',
    p_target_id: reportedId,
    p_reason: 'An insult aimed at me',
  });
  expect(reported.statusCode, reported.body).toBe(200);
}, 120_000);

afterAll(async () => {
  await consoleGateway?.close();
  await stack?.close();
});

describe('the Reports and Audit log pages', () => {
  it('show an open report with the message and the chat around it', async () => {
    const response = await admin('GET', '/__admin/reports');
    expect(response.statusCode, response.body).toBe(200);
    const [item] = response.json().reports;
    expect(item.report).toMatchObject({
      target_type: 'message',
      target_id: reportedId,
      reason: 'An insult aimed at me',
    });
    expect(item.message.content).toBe('Bo is an idiot and everyone knows it');
    expect(item.before.map((message: { content: string }) => message.content)).toEqual([
      'Who has the notes for chapter 4?',
    ]);
    expect(item.after.map((message: { content: string }) => message.content)).toEqual(['That is not kind.']);
    expect(item.group.name).toBe('Chemistry club');
    const page = await admin('GET', '/__admin/reports', undefined, 'text/html');
    expect(page.body).toContain('Bo is an idiot and everyone knows it');
    expect(page.body).toContain('Resolve report 1');
    expect(page.body).toContain('value="delete_message"');
  });

  it('are closed to a caller without an admin session, and a student cannot resolve through the Data API', async () => {
    for (const url of ['/__admin/reports', '/__admin/audit'])
      expect((await consoleGateway.app.inject({ url, headers: { accept: 'application/json' } })).statusCode).toBe(401);
    const id = (await stack.owner<{ id: string }>(`select id from public.community_reports`))[0]?.id as string;
    const byStudent = await stack.backend(bo, 'POST', '/rest/v1/rpc/resolve_report', {
      p_report_id: id,
      p_resolution: 'dismiss',
    });
    expect(byStudent.statusCode).toBeGreaterThanOrEqual(400);
    expect(byStudent.json().message).toBe('not_admin');
    const viaConsole = await consoleGateway.app.inject({
      method: 'POST',
      url: `/__admin/reports/${id}/resolve`,
      headers: { accept: 'application/json', authorization: `Bearer ${bo.token}` },
      payload: { resolution: 'dismiss' },
    });
    expect(viaConsole.statusCode).toBe(401);
    expect((await admin('GET', '/__admin/reports')).json().reports).toHaveLength(1);
  });

  it('resolve by deleting the message: gone for everyone, handled for Bo, named in the audit log', async () => {
    const id = (await stack.owner<{ id: string }>(`select id from public.community_reports`))[0]?.id as string;
    const wrong = await admin('POST', `/__admin/reports/${id}/resolve`, { resolution: 'archive' });
    expect(wrong.statusCode).toBe(400);

    const resolved = await admin('POST', `/__admin/reports/${id}/resolve`, {
      resolution: 'delete_message',
      note: 'Insults are not allowed',
    });
    expect(resolved.statusCode, resolved.body).toBe(200);
    expect(resolved.json()).toMatchObject({ ok: true, resolved: { id, resolution: 'delete_message' }, reports: [] });
    expect((await admin('POST', `/__admin/reports/${id}/resolve`, { resolution: 'dismiss' })).json().error).toBe(
      'report_already_resolved',
    );

    for (const reader of [ada, bo, cy]) {
      const chat = await stack.backend(
        reader,
        'GET',
        `/rest/v1/group_chat_messages?select=id,content,deleted_at&id=eq.${reportedId}`,
      );
      expect(chat.json()).toEqual([{ id: reportedId, content: '', deleted_at: expect.any(String) }]);
    }
    const mine = await stack.backend(bo, 'GET', '/rest/v1/community_reports?select=id,status,resolved_at');
    expect(mine.json()).toEqual([{ id, status: 'actioned', resolved_at: expect.any(String) }]);

    const audit = (await admin('GET', '/__admin/audit')).json().entries as Record<string, unknown>[];
    expect(audit.filter((entry) => entry.action === 'resolve_report:delete_message')).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'resolve_report:delete_message',
      actor_role: 'service_role',
      actor_name: 'the owner (admin secret)',
      target_name: cy.email,
      detail: expect.objectContaining({ console_admin: 'secret', note: 'Insults are not allowed' }),
    });
    const page = await admin('GET', '/__admin/audit', undefined, 'text/html');
    expect(page.body).toContain('resolve_report:delete_message');
    expect(page.body).toContain('the owner (admin secret)');
  });
});

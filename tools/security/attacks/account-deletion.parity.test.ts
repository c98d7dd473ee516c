// Deleting an account the ways a client really does it: a student through `/__backend` with her own
// token (delete_my_account, after deleting her files through the Storage API), and the console
// through the auth admin API (DELETE /auth/v1/admin/users/:id with the service key). Both apply the
// one rule of docs/database.md#deleting-an-account; both are refused while she still owns files.
import { describe, expect, it } from 'vitest';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

async function withGroupAndMessage(student: Student, name: string): Promise<string> {
  const created = await stack.backend(
    student,
    'POST',
    '/rest/v1/groups',
    {
      name,
      join_policy: 'open',
      created_by: student.id,
    },
    { prefer: 'return=representation' },
  );
  expect(created.statusCode, created.body).toBe(201);
  const groupId = created.json()[0].id as string;
  const sent = await stack.backend(student, 'POST', '/rest/v1/rpc/community_send_group_message', {
    p_group_id: groupId,
    p_content: `${name}: words of mine`,
  });
  expect(sent.statusCode, sent.body).toBe(200);
  return groupId;
}

function upload(student: Student) {
  return stack.gateway.app.inject({
    method: 'POST',
    url: `/__backend/storage/v1/object/avatars/${student.id}/me.png`,
    headers: { apikey: stack.localbase.anonKey, authorization: `Bearer ${student.token}`, 'content-type': 'image/png' },
    payload: PNG,
  });
}

function adminDelete(userId: string) {
  return fetch(`${stack.localbase.url}/auth/v1/admin/users/${userId}`, {
    method: 'DELETE',
    headers: { apikey: stack.localbase.serviceRoleKey, authorization: `Bearer ${stack.localbase.serviceRoleKey}` },
  });
}

async function rowsNaming(userId: string): Promise<number> {
  const [row] = await stack.owner<{ n: number }>(
    `select (select count(*) from public.users where id = $1)
          + (select count(*) from public.group_members where user_id = $1)
          + (select count(*) from public.group_chat_messages where sender_id = $1)
          + (select count(*) from auth.users where id = $1) as n`,
    [userId],
  );
  return Number(row?.n);
}

describe('deleting an account', () => {
  it('a student deletes her files, then her account; her group closes and her message is an empty tombstone', async () => {
    const leaver = await stack.signUp('leaver');
    await withGroupAndMessage(leaver, 'Leaver Solo Group');
    expect((await upload(leaver)).statusCode).toBe(200);

    const [profile] = await stack.owner<{ handle: string | null }>(
      `select handle from public.user_profiles where user_id = $1`,
      [leaver.id],
    );
    const confirmation = profile?.handle ?? 'delete';
    const early = await stack.backend(leaver, 'POST', '/rest/v1/rpc/delete_my_account', { p_confirm: confirmation });
    expect(early.statusCode, early.body).toBe(400);
    expect(early.json().message).toBe('storage_objects_remain');
    expect(await rowsNaming(leaver.id)).toBeGreaterThan(0);

    const wrong = await stack.backend(leaver, 'POST', '/rest/v1/rpc/delete_my_account', { p_confirm: 'yes please' });
    expect(wrong.json().message).toBe('invalid_confirmation');

    // supabase-js storage.from('avatars').remove([...]) sends this.
    const removed = await stack.backend(leaver, 'DELETE', '/storage/v1/object/avatars', {
      prefixes: [`${leaver.id}/me.png`],
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const done = await stack.backend(leaver, 'POST', '/rest/v1/rpc/delete_my_account', { p_confirm: confirmation });
    expect(done.statusCode, done.body).toBe(200);

    expect(await rowsNaming(leaver.id)).toBe(0);
    expect(await stack.owner(`select id from public.groups where name = 'Leaver Solo Group'`)).toEqual([]);
    expect(
      await stack.owner(`select id from public.group_chat_messages where content like 'Leaver Solo Group:%'`),
    ).toEqual([]);
  });

  it('the auth admin API applies the same rule: her group goes to the member who stays, her message is emptied', async () => {
    const owner = await stack.signUp('removed_owner');
    const member = await stack.signUp('staying_member');
    const groupId = await withGroupAndMessage(owner, 'Handed Over Group');
    const joined = await stack.backend(member, 'POST', '/rest/v1/rpc/community_join_group', { p_group_id: groupId });
    expect(joined.statusCode, joined.body).toBe(200);

    const response = await adminDelete(owner.id);
    expect(response.status, await response.text()).toBe(200);

    expect(await rowsNaming(owner.id)).toBe(0);
    expect(await stack.owner(`select user_id, role from public.group_members where group_id = $1`, [groupId])).toEqual([
      { user_id: member.id, role: 'owner' },
    ]);
    expect(
      await stack.owner(`select content, sender_id from public.group_chat_messages where group_id = $1`, [groupId]),
    ).toEqual([{ content: '', sender_id: null }]);
    expect(
      await stack.owner(`select actor_role from public.admin_audit_log where target_user_id = $1`, [owner.id]),
    ).toEqual([{ actor_role: 'service_role' }]);
  });

  it('the auth admin API is refused too while she owns files, and nothing of hers is touched', async () => {
    const keeper = await stack.signUp('file_keeper');
    await withGroupAndMessage(keeper, 'Keeper Group');
    expect((await upload(keeper)).statusCode).toBe(200);

    // As GoTrue answers a database refusal ("Database error deleting user"): a 500, no detail.
    const response = await adminDelete(keeper.id);
    expect(response.status, await response.text()).toBe(500);
    expect(
      await stack.owner(`select content from public.group_chat_messages where sender_id = $1`, [keeper.id]),
    ).toEqual([{ content: 'Keeper Group: words of mine' }]);
    expect(await stack.owner(`select id from auth.users where id = $1`, [keeper.id])).toHaveLength(1);
  });
});

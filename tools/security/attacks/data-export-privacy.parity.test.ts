// attack: learn from "download my data" what every other read hides. A blocked student's export
// (export_my_data) listed the block, {"status": "blocked", "user_id": <the blocker>}, although the
// buddy reads, the RPCs and the policies never tell her of it; and it listed the messages of a
// group she was removed from, whose chat she can no longer read. The export now reads as her, under
// her own policies and column grants, so it holds nothing she could not read through the Data API.
import { describe, expect, it } from 'vitest';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);

async function rpc(student: Student, name: string, body: Record<string, unknown> = {}): Promise<unknown> {
  const response = await stack.backend(student, 'POST', `/rest/v1/rpc/${name}`, body);
  // A function returning void answers 204, as PostgREST does.
  expect([200, 204], `${name}: ${response.body}`).toContain(response.statusCode);
  return response.statusCode === 204 ? null : response.json();
}

async function withHandle(name: string): Promise<Student> {
  const student = await stack.signUp(name);
  await rpc(student, 'community_bootstrap_profile', { p_handle: name });
  return student;
}

type Export = Record<string, unknown> & {
  buddies: { id: string }[];
  groups: { group_id: string }[];
  messages: { id: string; group_id: string }[];
  reports: { id: string }[];
};

const exportOf = async (student: Student) => (await rpc(student, 'export_my_data')) as Export;

/** What her own reads through the Data API return: the ids of a table's rows. */
async function readableIds(student: Student, table: string): Promise<string[]> {
  const response = await stack.backend(student, 'GET', `/rest/v1/${table}?select=id`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: string }[]).map((row) => row.id);
}

describe("a student's data export", () => {
  it('does not tell a blocked student who blocked her', async () => {
    const blocked = await withHandle('export_blocked');
    const blocker = await withHandle('export_blocker');
    const friend = await withHandle('export_friend');
    await rpc(blocked, 'community_request_buddy', { p_handle: 'export_blocker' });
    await rpc(blocked, 'community_request_buddy', { p_handle: 'export_friend' });
    await rpc(blocker, 'community_remove_buddy', { p_other_user: blocked.id, p_block: true });

    const data = await exportOf(blocked);
    expect(JSON.stringify(data)).not.toContain(blocker.id);
    // Her pending request to the friend is hers to see, and the same row her reads return.
    expect(data.buddies.map((row) => row.id)).toEqual(await readableIds(blocked, 'community_friends'));
    expect(data.buddies).toHaveLength(1);
    expect(data.buddies[0]).toMatchObject({ user_id: blocked.id, friend_id: friend.id, status: 'pending' });

    // The blocker's own export keeps the block: she placed it and reads it.
    const own = await exportOf(blocker);
    expect(own.buddies).toEqual([expect.objectContaining({ user_id: blocker.id, status: 'blocked' })]);
  });

  it('holds nothing of a group she was removed from, and no report about her', async () => {
    const owner = await withHandle('export_group_owner');
    const removed = await withHandle('export_removed');
    const created = await stack.backend(
      owner,
      'POST',
      '/rest/v1/groups',
      { name: 'Export Removal Group', join_policy: 'open', visibility: 'private', created_by: owner.id },
      { prefer: 'return=representation' },
    );
    expect(created.statusCode, created.body).toBe(201);
    const groupId = created.json()[0].id as string;
    await rpc(removed, 'community_join_group', { p_group_id: groupId });
    await rpc(removed, 'community_send_group_message', { p_group_id: groupId, p_content: 'before removal' });
    await rpc(owner, 'community_submit_report', { p_target_type: 'user', p_target_id: removed.id, p_reason: 'spam' });
    await rpc(owner, 'community_remove_member', { p_group_id: groupId, p_user_id: removed.id });

    const data = await exportOf(removed);
    expect(JSON.stringify(data)).not.toContain(groupId);
    expect(JSON.stringify(data)).not.toContain(owner.id);
    expect(data.groups).toEqual([]);
    expect(data.messages).toEqual([]);
    expect(data.reports).toEqual([]);
    expect(await readableIds(removed, 'group_chat_messages')).toEqual([]);
  });

  it('still holds everything she may read: her groups, messages, buddies and reports', async () => {
    const owner = await withHandle('export_member_owner');
    const member = await withHandle('export_member');
    const created = await stack.backend(
      owner,
      'POST',
      '/rest/v1/groups',
      { name: 'Export Member Group', join_policy: 'open', created_by: owner.id },
      { prefer: 'return=representation' },
    );
    const groupId = created.json()[0].id as string;
    await rpc(member, 'community_join_group', { p_group_id: groupId });
    await rpc(member, 'community_send_group_message', { p_group_id: groupId, p_content: 'mine' });
    await rpc(member, 'community_request_buddy', { p_handle: 'export_member_owner' });
    await rpc(member, 'community_submit_report', { p_target_type: 'group', p_target_id: groupId, p_reason: 'noise' });

    const data = await exportOf(member);
    expect(data.groups).toEqual([expect.objectContaining({ group_id: groupId, name: 'Export Member Group' })]);
    expect(data.messages).toEqual([expect.objectContaining({ group_id: groupId, content: 'mine' })]);
    expect(data.messages.map((row) => row.id)).toEqual(await readableIds(member, 'group_chat_messages'));
    expect(data.buddies.map((row) => row.id)).toEqual(await readableIds(member, 'community_friends'));
    expect(data.reports.map((row) => row.id)).toEqual(await readableIds(member, 'community_reports'));
    expect(data.reports).toHaveLength(1);
  });
});

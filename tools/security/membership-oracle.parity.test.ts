// The membership helpers through the Data API, as a curious student would call them: supabase-js
// `rpc('_is_group_member')` and `rpc('_has_group_role')` with another student's id say nothing
// about a private group RLS hides, while the policies built on the helpers keep working for the
// group's members and owner. On PostgreSQL 15 in `npm test`.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, signedUpClient } from '#localbase/test/clients.ts';
import { startLocalbaseStack } from '../testing/localbase-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

type Student = Awaited<ReturnType<typeof signedUpClient>>;

const localbase = fileFixture(startLocalbaseStack);
let owner: Student;
let member: Student;
let curious: Student;
let service: SupabaseClient;
let groupId: string;

beforeAll(async () => {
  [owner, member, curious] = await Promise.all([
    signedUpClient(localbase, 'owner'),
    signedUpClient(localbase, 'member'),
    signedUpClient(localbase, 'curious'),
  ]);
  service = clientFor(localbase, localbase.serviceRoleKey);
  const created = await owner.client
    .from('groups')
    .insert({ name: 'Private Pharmacology', visibility: 'private', join_policy: 'invite', created_by: owner.id })
    .select('id')
    .single();
  if (created.error) throw new Error(`group creation failed: ${created.error.message}`);
  groupId = (created.data as { id: string }).id;
  const invite = await owner.client.rpc('community_create_invite', { p_type: 'group', p_target_id: groupId });
  if (invite.error) throw new Error(`invite failed: ${invite.error.message}`);
  const redeemed = await member.client.rpc('community_redeem_invite', { p_token: invite.data });
  if (redeemed.error) throw new Error(`redeem failed: ${redeemed.error.message}`);
});

afterAll(async () => {
  for (const person of [owner, member, curious]) await person?.client.auth.signOut();
});

async function isMember(client: SupabaseClient, uid: string): Promise<unknown> {
  const { data, error } = await client.rpc('_is_group_member', { gid: groupId, uid });
  if (error) throw new Error(`_is_group_member failed: ${error.message}`);
  return data;
}

async function hasRole(client: SupabaseClient, uid: string, roles: string[]): Promise<unknown> {
  const { data, error } = await client.rpc('_has_group_role', { gid: groupId, uid, allowed_roles: roles });
  if (error) throw new Error(`_has_group_role failed: ${error.message}`);
  return data;
}

describe('membership helpers over /rest/v1/rpc', () => {
  it('the curious student cannot see the private group at all', async () => {
    const { data, error } = await curious.client.from('groups').select('id').eq('id', groupId);
    expect(error).toBeNull();
    expect(data).toEqual([]);
  });

  it('_is_group_member answers false about the owner and the member of that group', async () => {
    expect(await isMember(curious.client, owner.id)).toBe(false);
    expect(await isMember(curious.client, member.id)).toBe(false);
  });

  it('_has_group_role answers false about who owns it or holds any role in it', async () => {
    expect(await hasRole(curious.client, owner.id, ['owner'])).toBe(false);
    expect(await hasRole(curious.client, member.id, ['owner', 'member'])).toBe(false);
  });

  it('a member asking about the owner gets false too: the helpers answer only about the caller', async () => {
    expect(await hasRole(member.client, owner.id, ['owner'])).toBe(false);
    expect(await isMember(member.client, member.id)).toBe(true);
    expect(await hasRole(owner.client, owner.id, ['owner'])).toBe(true);
  });

  it('a signed-out caller is refused', async () => {
    const { error } = await clientFor(localbase).rpc('_is_group_member', { gid: groupId, uid: owner.id });
    expect(error?.code).toBe('42501');
    const role = await clientFor(localbase).rpc('_has_group_role', {
      gid: groupId,
      uid: owner.id,
      allowed_roles: ['owner'],
    });
    expect(role.error?.code).toBe('42501');
  });

  it('the service role still asks about anyone', async () => {
    expect(await isMember(service, member.id)).toBe(true);
    expect(await hasRole(service, owner.id, ['owner'])).toBe(true);
  });

  it('the policies on the helpers still work: the member posts and reads chat, the owner edits the group', async () => {
    const posted = await member.client
      .from('group_chat_messages')
      .insert({ group_id: groupId, sender_id: member.id, content: 'quiz at 8' })
      .select('content')
      .single();
    expect(posted.error).toBeNull();
    const read = await owner.client.from('group_chat_messages').select('content').eq('group_id', groupId);
    expect(read.data).toEqual([{ content: 'quiz at 8' }]);
    const edited = await owner.client
      .from('groups')
      .update({ description: 'weekly quizzes' })
      .eq('id', groupId)
      .select('description');
    expect(edited.data).toEqual([{ description: 'weekly quizzes' }]);
  });

  it('and still refuse the curious student: no posting, no reading, no editing', async () => {
    const post = await curious.client
      .from('group_chat_messages')
      .insert({ group_id: groupId, sender_id: curious.id, content: 'hi' });
    expect(post.error?.code).toBe('42501');
    const read = await curious.client.from('group_chat_messages').select('content').eq('group_id', groupId);
    expect(read.data).toEqual([]);
    const edit = await curious.client.from('groups').update({ description: 'defaced' }).eq('id', groupId).select('id');
    expect(edit.data).toEqual([]);
    const check = await service.from('groups').select('description').eq('id', groupId).single();
    expect(check.data).toEqual({ description: 'weekly quizzes' });
  });
});

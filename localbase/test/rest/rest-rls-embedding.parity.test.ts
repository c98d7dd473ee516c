// Row-level security through embedding, on studyhall's own schema: every embedded table is read
// under the caller's role, so a student embedding group_members into groups sees only what both
// tables' policies allow, and the members of a private group they are not in never appear, from
// whichever readable table the embed starts.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor, signedUpClient } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let owner: Awaited<ReturnType<typeof signedUpClient>>;
let member: Awaited<ReturnType<typeof signedUpClient>>;
let outsider: Awaited<ReturnType<typeof signedUpClient>>;
let privateGroup: string;
let openGroup: string;

async function createGroup(client: SupabaseClient, name: string, visibility: 'public' | 'private'): Promise<string> {
  const { data, error } = await client
    .from('groups')
    .insert({ name, visibility, join_policy: 'open' })
    .select('id')
    .single();
  if (error || !data) throw new Error(`group ${name}: ${error?.message}`);
  return (data as { id: string }).id;
}

beforeAll(async () => {
  owner = await signedUpClient(localbase, 'owner');
  member = await signedUpClient(localbase, 'member');
  outsider = await signedUpClient(localbase, 'outsider');
  privateGroup = await createGroup(owner.client, 'Private circle', 'private');
  openGroup = await createGroup(owner.client, 'Open hall', 'public');
  expect((await member.client.rpc('community_join_group', { p_group_id: openGroup })).data).toBe('member');
  // A private group is joined by its id (a shared link); this one's join policy is open.
  const insider = await signedUpClient(localbase, 'insider');
  expect((await insider.client.rpc('community_join_group', { p_group_id: privateGroup })).data).toBe('member');
});

describe('embedding group_members into groups', () => {
  it('a member sees their groups with all members; a private group they are not in is absent', async () => {
    const { data, error } = await member.client
      .from('groups')
      .select('id,name,group_members(user_id,role)')
      .order('name');
    expect(error).toBeNull();
    const groups = data as { id: string; name: string; group_members: { user_id: string; role: string }[] }[];
    expect(groups.map((group) => group.id)).not.toContain(privateGroup);
    const open = groups.find((group) => group.id === openGroup);
    expect(open?.group_members.map((row) => row.user_id).sort()).toEqual([owner.id, member.id].sort());
  });

  it('an outsider sees a public group but none of its members, and nothing of the private one', async () => {
    const { data } = await outsider.client
      .from('groups')
      .select('id,group_members(user_id)')
      .in('id', [openGroup, privateGroup]);
    expect(data).toEqual([{ id: openGroup, group_members: [] }]);
    const inner = await outsider.client.from('groups').select('id,group_members!inner(user_id)');
    expect(inner.data).toEqual([]);
    const spread = await outsider.client
      .from('groups')
      .select('id,...group_members(members:user_id)')
      .eq('id', openGroup);
    expect(spread.data).toEqual([{ id: openGroup, members: [] }]);
  });

  it("the private group's members never appear from another readable table, or by naming its id", async () => {
    for (const client of [member.client, outsider.client]) {
      const fromUsers = await client.from('users').select('id,group_members(group_id,groups(name))');
      const rows = fromUsers.data as { group_members: { group_id: string }[] }[];
      expect(rows.flatMap((row) => row.group_members.map((m) => m.group_id))).not.toContain(privateGroup);
      const byId = await client.from('group_members').select('user_id,groups(name)').eq('group_id', privateGroup);
      expect(byId.data).toEqual([]);
      const embeddedFilter = await client
        .from('groups')
        .select('id,group_members(user_id)')
        .eq('group_members.group_id', privateGroup);
      expect(
        (embeddedFilter.data as { group_members: unknown[] }[]).every((group) => group.group_members.length === 0),
      ).toBe(true);
      const counted = await client
        .from('group_members')
        .select('*', { count: 'exact', head: true })
        .eq('group_id', privateGroup);
      expect(counted.count).toBe(0);
    }
  });

  it('the owner sees both groups with their members', async () => {
    const { data } = await owner.client
      .from('groups')
      .select('id,group_members(user_id)')
      .in('id', [openGroup, privateGroup]);
    const byId = new Map(
      (data as { id: string; group_members: unknown[] }[]).map((group) => [group.id, group.group_members.length]),
    );
    expect(byId.get(openGroup)).toBe(2);
    expect(byId.get(privateGroup)).toBe(2);
  });

  it('anon cannot read groups even through an embed (401 42501)', async () => {
    const { status, error } = await clientFor(localbase).from('groups').select('id,group_members(user_id)');
    expect(status).toBe(401);
    expect(error?.code).toBe('42501');
  });
});

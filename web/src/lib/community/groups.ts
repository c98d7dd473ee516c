// Groups through supabase-js: discovery, the group row (RLS shows public groups and the caller's
// own), membership and requests, the board, chat-free owner tools, leaderboard and analytics,
// invites and reports. The database functions raise the codes the screens explain.
import { z } from 'zod';
import {
  analyticsDay,
  boardMember,
  discoveredGroup,
  joinAnswer,
  joinRequest,
  leaderboardRow,
  type DiscoveredGroup,
} from '#contracts/community-answers.ts';
import {
  GROUP_COLUMNS,
  GROUP_INVITE_COLUMNS,
  groupInvite,
  groupRole,
  groupRow,
  type GroupInvite,
  type GroupRole,
  type GroupRow,
  type JoinPolicy,
  type Visibility,
} from '#contracts/community-rows.ts';
import { appAddress } from '../app-address.ts';
import { clientConfig } from '../client-config.ts';
import { client, CommunityError, communityError, currentUserId, nothing, rows, rpc, write } from './backend.ts';

export const DISCOVER_PAGE = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isGroupId(value: string): boolean {
  return UUID.test(value);
}

export async function discoverGroups(
  search: string,
  page: number,
): Promise<{ groups: DiscoveredGroup[]; hasMore: boolean }> {
  // One more than a page tells whether another page exists.
  const found = await rpc(
    'community_discover_groups',
    { p_search: search.trim() || null, p_limit: DISCOVER_PAGE + 1, p_offset: page * DISCOVER_PAGE },
    z.array(discoveredGroup),
  );
  return { groups: found.slice(0, DISCOVER_PAGE), hasMore: found.length > DISCOVER_PAGE };
}

/** The group row, or null when it does not exist or is private to others (the same answer). */
export async function readGroup(groupId: string): Promise<GroupRow | null> {
  if (!isGroupId(groupId)) return null;
  const found = await rows((await client()).from('groups').select(GROUP_COLUMNS).eq('id', groupId).limit(1), groupRow);
  return found[0] ?? null;
}

export type Standing = { kind: 'member'; role: GroupRole } | { kind: 'pending' } | { kind: 'outside' };

/** The caller's own standing in a group: member (with role), a pending request, or outside. */
export async function standingIn(groupId: string): Promise<Standing> {
  const sb = await client();
  const userId = await currentUserId();
  if (!userId) throw new CommunityError('signed_out', 'Sign in again.');
  const membership = await rows(
    sb.from('group_members').select('role').eq('group_id', groupId).eq('user_id', userId).limit(1),
    z.object({ role: groupRole }),
  );
  if (membership[0]) return { kind: 'member', role: membership[0].role };
  const pending = await rows(
    sb
      .from('community_join_requests')
      .select('id')
      .eq('group_id', groupId)
      .eq('user_id', userId)
      .eq('status', 'pending')
      .limit(1),
    z.object({ id: z.string() }),
  );
  return pending[0] ? { kind: 'pending' } : { kind: 'outside' };
}

export interface GroupDraft {
  name: string;
  description: string;
  visibility: Visibility;
  joinPolicy: JoinPolicy;
}

export async function createGroup(draft: GroupDraft): Promise<GroupRow> {
  const sb = await client();
  const userId = await currentUserId();
  if (!userId) throw new CommunityError('signed_out', 'Sign in again.');
  const { data, error, status } = await sb
    .from('groups')
    .insert({
      name: draft.name,
      description: draft.description,
      visibility: draft.visibility,
      join_policy: draft.joinPolicy,
      created_by: userId,
    })
    .select(GROUP_COLUMNS)
    .single();
  if (error) throw communityError(error, status);
  return groupRow.parse(data);
}

export async function updateGroup(
  groupId: string,
  patch: Partial<{
    name: string;
    description: string;
    visibility: Visibility;
    join_policy: JoinPolicy;
    icon_url: string | null;
  }>,
): Promise<GroupRow> {
  const { data, error, status } = await (
    await client()
  )
    .from('groups')
    .update(patch)
    .eq('id', groupId)
    .select(GROUP_COLUMNS);
  if (error) throw communityError(error, status);
  const updated = z.array(groupRow).parse(data ?? [])[0];
  // RLS lets only owners update: for anyone else the update matches no row.
  if (!updated) throw new CommunityError('not_group_owner', 'Only an owner of this group may do that.');
  return updated;
}

/** Stores an icon in group-icons (owners only, by policy) and points the group at it. */
export async function uploadGroupIcon(groupId: string, icon: Blob): Promise<GroupRow> {
  const sb = await client();
  const extension = icon.type === 'image/webp' ? 'webp' : 'png';
  const objectName = `${groupId}/icon-${Date.now()}.${extension}`;
  const { error } = await sb.storage
    .from('group-icons')
    .upload(objectName, icon, { contentType: icon.type, upsert: true, cacheControl: '31536000' });
  if (error) throw communityError(error, Number((error as { statusCode?: string }).statusCode) || 0);
  // Same-origin and relative: the app's policy allows images from this origin only, and a phone
  // on the LAN reaches the gateway under another host name than this computer does.
  const base = (await clientConfig()).backend_url.replace(/\/$/, '');
  return updateGroup(groupId, { icon_url: `${base}/storage/v1/object/public/group-icons/${objectName}` });
}

export const joinGroup = (groupId: string) => rpc('community_join_group', { p_group_id: groupId }, joinAnswer);
export const cancelJoinRequest = (groupId: string) =>
  rpc('community_cancel_join_request', { p_group_id: groupId }, nothing);
export const leaveGroup = (groupId: string) => rpc('community_leave_group', { p_group_id: groupId }, nothing);
export const deleteGroup = (groupId: string) => rpc('community_delete_group', { p_group_id: groupId }, nothing);
export const removeMember = (groupId: string, userId: string) =>
  rpc('community_remove_member', { p_group_id: groupId, p_user_id: userId }, nothing);
export const setMemberRole = (groupId: string, userId: string, role: GroupRole) =>
  rpc('community_set_member_role', { p_group_id: groupId, p_user_id: userId, p_role: role }, nothing);
export const transferOwnership = (groupId: string, userId: string) =>
  rpc('community_transfer_ownership', { p_group_id: groupId, p_new_owner: userId }, nothing);

export const readBoard = (groupId: string) =>
  rpc('community_get_group_board', { p_group_id: groupId }, z.array(boardMember));

export type Period = 'day' | 'week' | 'month' | 'all';
/** Days counted back from today for each leaderboard period ("all" reaches back a century). */
export const PERIOD_DAYS: Record<Period, number> = { day: 1, week: 7, month: 30, all: 36_500 };
export const readLeaderboard = (groupId: string, period: Period) =>
  rpc(
    'get_group_leaderboard',
    { p_group_id: groupId, p_limit: 50, p_days: PERIOD_DAYS[period] },
    z.array(leaderboardRow),
  );
export const readAnalytics = (groupId: string, days: number) =>
  rpc('get_group_analytics_from_snapshots', { p_group_id: groupId, p_days: days }, z.array(analyticsDay));

/** The group's invites, each with the link to hand out (inviteLink). */
export async function listInvites(groupId: string): Promise<(GroupInvite & { link: string })[]> {
  const invites = await rows(
    (await client())
      .from('group_invites')
      .select(GROUP_INVITE_COLUMNS)
      .eq('group_id', groupId)
      .order('created_at', { ascending: false }),
    groupInvite,
  );
  const base = await invitedAddress();
  return invites.map((invite) => ({ ...invite, link: `${base}/invite/${invite.token}` }));
}
export const createGroupInvite = (groupId: string, days: number | null, maxUses: number | null) =>
  rpc(
    'community_create_invite',
    { p_type: 'group', p_target_id: groupId, p_days: days, p_max_uses: maxUses },
    z.string().min(1),
  );
export const revokeInvite = (token: string) => rpc('community_revoke_invite', { p_token: token }, nothing);

export const listJoinRequests = (groupId: string) =>
  rpc('community_get_join_requests', { p_group_id: groupId }, z.array(joinRequest));
export const respondJoinRequest = (requestId: string, accept: boolean) =>
  rpc('community_respond_join_request', { p_request_id: requestId, p_accept: accept }, nothing);

export type ReportTarget = 'group' | 'message' | 'user';
export const submitReport = (targetType: ReportTarget, targetId: string, reason: string) =>
  rpc('community_submit_report', { p_target_type: targetType, p_target_id: targetId, p_reason: reason }, z.string());

/** Where the invited open the app: the students' address, never this computer's loopback one. */
async function invitedAddress(): Promise<string> {
  const base = await appAddress();
  if (!base) throw new CommunityError('offline', 'The server could not be reached.');
  return base;
}

/** A link another student can open on her own device: /invite/<token> at the students' address. */
export async function inviteLink(token: string): Promise<string> {
  return `${await invitedAddress()}/invite/${token}`;
}

export { write };

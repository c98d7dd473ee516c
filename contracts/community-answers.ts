// What the community's database functions answer (POST /rest/v1/rpc/<name>), as the web app relies
// on it: rows of a function that returns a table, or the JSON a function builds (camelCase keys).
// The app parses each answer with these shapes and drops keys it does not know, so an older app
// keeps working against a newer database; tools/contracts/community-answers.parity.test.ts calls
// each function on a seeded database and parses the answer strictly, so a migration that changes
// an answer fails until the shape here says so. Classic zod, as community-rows.ts explains.
import { z } from 'zod';
import { groupRole, joinPolicy, presenceState, timestamp, uuid, visibility } from './community-rows.ts';

/** community_discover_groups: one row per group the caller may see. */
export const discoveredGroup = z.object({
  id: uuid,
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  icon_url: z.string().nullable(),
  exam_name: z.string().nullable(),
  exam_date: z.string().nullable(),
  subjects: z.array(z.string()).nullable(),
  visibility,
  join_policy: joinPolicy,
  member_count: z.number().int(),
  is_member: z.boolean(),
});
export type DiscoveredGroup = z.infer<typeof discoveredGroup>;

/** community_join_group: in at once, or a request waiting for an owner. */
export const joinAnswer = z.enum(['member', 'pending']);

/** community_get_group_board: each member, filtered by that member's own privacy switches. */
export const boardMember = z.object({
  userId: uuid,
  handle: z.string().nullable(),
  displayName: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  role: groupRole,
  joinedAt: timestamp,
  you: z.boolean(),
  minutesToday: z.number().int().nullable(),
  presence: z.object({
    state: presenceState,
    subject: z.string().nullable(),
    task: z.string().nullable(),
    since: z.string().nullable(),
  }),
});
export type BoardMember = z.infer<typeof boardMember>;

/** get_group_leaderboard: one row per ranked member. */
export const leaderboardRow = z.object({
  // bigint columns: a number from PostgREST, possibly a string from another Data API.
  rank: z.coerce.number(),
  user_id: uuid,
  display_name: z.string(),
  minutes: z.coerce.number(),
  correct: z.coerce.number(),
  points: z.coerce.number(),
});
export type LeaderboardRow = z.infer<typeof leaderboardRow>;

/** get_group_analytics_from_snapshots: one row per study day. */
export const analyticsDay = z.object({
  study_day: z.string(),
  total_minutes: z.coerce.number(),
  total_correct: z.coerce.number(),
  active_members: z.coerce.number(),
});
export type AnalyticsDay = z.infer<typeof analyticsDay>;

/** community_get_join_requests: the pending requests of a group, for its owners. */
export const joinRequest = z.object({
  id: uuid,
  userId: uuid,
  handle: z.string().nullable(),
  displayName: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  createdAt: timestamp,
});
export type JoinRequest = z.infer<typeof joinRequest>;

/** community_preview_invite: what a link leads to, or only {valid: false}. */
export const invitePreview = z.union([
  z.object({
    valid: z.literal(true),
    type: z.literal('group'),
    group_id: uuid,
    group_name: z.string(),
    member_count: z.number().int(),
    inviter: z.string().nullable(),
  }),
  z.object({ valid: z.literal(true), type: z.literal('buddy'), inviter: z.string().nullable() }),
  z.object({ valid: z.literal(false) }),
]);
export type InvitePreview = z.infer<typeof invitePreview>;

/** community_redeem_invite: the group joined, or the buddy connection made. */
export const redeemAnswer = z.union([
  z.object({ type: z.literal('group'), group_id: uuid, already_member: z.boolean() }),
  z.object({ type: z.literal('buddy'), connection_id: uuid }),
]);

/** community_get_overview: buddies and pending requests. null = not shared, [] = nothing yet. */
export const overviewEntry = z.object({
  connectionId: uuid,
  userId: uuid,
  handle: z.string().nullable(),
  displayName: z.string().nullable(),
  status: z.enum(['accepted', 'pending']),
  outgoing: z.boolean(),
  minutesToday: z.number().int().nullable(),
  questionsToday: z.number().int().nullable(),
  subjects: z
    .array(z.object({ name: z.string(), minutes: z.number().int(), questions: z.number().int().nullable() }))
    .nullable(),
  tasks: z
    .array(z.object({ id: z.string(), title: z.string(), subject: z.string().nullable(), done: z.boolean() }))
    .nullable(),
  presence: z.object({ state: presenceState, subject: z.string().nullable(), task: z.string().nullable() }).nullable(),
});
export type OverviewEntry = z.infer<typeof overviewEntry>;

/** What community_set_start_alert answers. */
export const startAlertJson = z.object({
  targetType: z.enum(['buddy', 'group']),
  targetId: uuid,
  enabled: z.boolean(),
  quietStart: z.string().nullable(),
  quietEnd: z.string().nullable(),
  timezoneOffsetMinutes: z.number().int(),
});

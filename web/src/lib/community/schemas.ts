// The shapes of what the community's database functions and tables answer, as the app relies on
// them. Field names follow the database (snake_case rows, camelCase JSON built by the functions).
import { z } from 'zod';

const uuid = z.string().min(1);
const timestamp = z.string().min(1);

export const visibility = z.enum(['public', 'private']);
export const joinPolicy = z.enum(['open', 'request', 'invite']);
export type Visibility = z.infer<typeof visibility>;
export type JoinPolicy = z.infer<typeof joinPolicy>;

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

/** The columns of public.groups the app reads. */
export const GROUP_COLUMNS =
  'id,slug,name,description,icon_url,visibility,join_policy,member_count,chat_enabled,leaderboard_enabled,created_at';
export const groupRow = z.object({
  id: uuid,
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  icon_url: z.string().nullable(),
  visibility,
  join_policy: joinPolicy,
  member_count: z.number().int(),
  chat_enabled: z.boolean(),
  leaderboard_enabled: z.boolean(),
  created_at: timestamp,
});
export type GroupRow = z.infer<typeof groupRow>;

export const presenceState = z.enum(['studying', 'break', 'idle', 'offline']);
export type PresenceState = z.infer<typeof presenceState>;

/** A member's role in a group: owners manage it, moderators also delete others' chat messages. */
export const groupRole = z.enum(['owner', 'moderator', 'member']);
export type GroupRole = z.infer<typeof groupRole>;

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

/** A row of public.group_chat_messages (history, realtime and the send function answer it). */
export const chatMessage = z.object({
  id: uuid,
  group_id: uuid,
  sender_id: uuid.nullable(),
  content: z.string(),
  created_at: timestamp,
  // A deleted message stays as a tombstone: empty content, the time it was removed.
  deleted_at: timestamp.nullable().optional(),
});
export type ChatMessage = z.infer<typeof chatMessage>;

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

export const analyticsDay = z.object({
  study_day: z.string(),
  total_minutes: z.coerce.number(),
  total_correct: z.coerce.number(),
  active_members: z.coerce.number(),
});
export type AnalyticsDay = z.infer<typeof analyticsDay>;

export const groupInvite = z.object({
  token: z.string(),
  expires_at: z.string().nullable(),
  max_uses: z.number().int().nullable(),
  uses_count: z.number().int(),
  created_at: timestamp,
});
export type GroupInvite = z.infer<typeof groupInvite>;

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

export const PRIVACY_KEYS = [
  'stealthMode',
  'shareCurrentSubject',
  'shareTasks',
  'shareExactTime',
  'shareSubjectBreakdown',
  'shareQuestionCounts',
] as const;
export type PrivacyKey = (typeof PRIVACY_KEYS)[number];
export const privacySwitches = z.object({
  stealthMode: z.boolean(),
  shareTasks: z.boolean(),
  shareSubjectBreakdown: z.boolean(),
  shareQuestionCounts: z.boolean(),
  shareExactTime: z.boolean(),
  shareCurrentSubject: z.boolean(),
});
export type PrivacySwitches = z.infer<typeof privacySwitches>;

export const enrollment = z.object({
  consent: z.boolean(),
  consented_at: z.string().nullable(),
  privacy: privacySwitches,
});
export type Enrollment = z.infer<typeof enrollment>;

/** A row of community_start_alerts (the caller's own). */
export const startAlertRow = z.object({
  target_type: z.enum(['buddy', 'group']),
  target_id: uuid,
  enabled: z.boolean(),
  quiet_start: z.string().nullable(),
  quiet_end: z.string().nullable(),
  timezone_offset_minutes: z.number().int(),
});
export type StartAlertRow = z.infer<typeof startAlertRow>;

/** What community_set_start_alert answers. */
export const startAlertJson = z.object({
  targetType: z.enum(['buddy', 'group']),
  targetId: uuid,
  enabled: z.boolean(),
  quietStart: z.string().nullable(),
  quietEnd: z.string().nullable(),
  timezoneOffsetMinutes: z.number().int(),
});

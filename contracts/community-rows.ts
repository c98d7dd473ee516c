// The community's rows as the web app reads them through the Data API (RLS decides which): each
// shape with the column list the app selects, taken from the shape, so the two cannot drift. Field
// names follow the database (snake_case). The values the database allows (a group's visibility, a
// member's role, a presence state) are here too, since rows and function answers both carry them.
// tools/contracts/community-answers.parity.test.ts reads each on a seeded database and parses it
// strictly. Classic zod, not zod/mini as the contracts the focus screen loads: the community's
// readers (loaded lazily) chain its methods.
import { z } from 'zod';

export const uuid = z.string().min(1);
export const timestamp = z.string().min(1);

/** The column list of a select that reads exactly a shape's fields. */
function columnsOf(shape: z.ZodObject): string {
  return Object.keys(shape.shape).join(',');
}

export const visibility = z.enum(['public', 'private']);
export const joinPolicy = z.enum(['open', 'request', 'invite']);
export type Visibility = z.infer<typeof visibility>;
export type JoinPolicy = z.infer<typeof joinPolicy>;

export const presenceState = z.enum(['studying', 'break', 'idle', 'offline']);
export type PresenceState = z.infer<typeof presenceState>;

/** A member's role in a group: owners manage it, moderators also delete others' chat messages. */
export const groupRole = z.enum(['owner', 'moderator', 'member']);
export type GroupRole = z.infer<typeof groupRole>;

/** The columns of public.groups the app reads. */
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
export const GROUP_COLUMNS = columnsOf(groupRow);

/** A group's invite links, as its owners list them (public.group_invites). */
export const groupInvite = z.object({
  token: z.string(),
  expires_at: z.string().nullable(),
  max_uses: z.number().int().nullable(),
  uses_count: z.number().int(),
  created_at: timestamp,
});
export type GroupInvite = z.infer<typeof groupInvite>;
export const GROUP_INVITE_COLUMNS = columnsOf(groupInvite);

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
export const CHAT_MESSAGE_COLUMNS = columnsOf(chatMessage);

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

/** The student's own row of public.community_enrollments. */
export const enrollment = z.object({
  consent: z.boolean(),
  consented_at: z.string().nullable(),
  privacy: privacySwitches,
});
export type Enrollment = z.infer<typeof enrollment>;
export const ENROLLMENT_COLUMNS = columnsOf(enrollment);

/** A row of public.community_start_alerts (the caller's own). */
export const startAlertRow = z.object({
  target_type: z.enum(['buddy', 'group']),
  target_id: uuid,
  enabled: z.boolean(),
  quiet_start: z.string().nullable(),
  quiet_end: z.string().nullable(),
  timezone_offset_minutes: z.number().int(),
});
export type StartAlertRow = z.infer<typeof startAlertRow>;
export const START_ALERT_COLUMNS = columnsOf(startAlertRow);

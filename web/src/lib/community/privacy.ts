// The student's community enrollment: consent and the six privacy switches (their own row of
// community_enrollments, which only they read and write). Each switch comes with the plain
// statement the privacy screen shows of who sees what.
import {
  enrollment,
  ENROLLMENT_COLUMNS,
  type Enrollment,
  type PrivacyKey,
  type PrivacySwitches,
} from '#contracts/community-rows.ts';
import { client, CommunityError, communityError, currentUserId, rows } from './backend.ts';
import { rememberConsent } from './consent.ts';

export interface SwitchText {
  key: PrivacyKey;
  label: string;
  on: string;
  off: string;
  /** What stealth mode changes about this switch, shown while both are on. */
  stealthNote?: string;
}

/** In the order the screen lists them; stealth first because it overrides the others. */
export const SWITCHES: SwitchText[] = [
  {
    key: 'stealthMode',
    label: 'Stealth mode',
    // The screen words stealth from sharing.ts, which says what the other switches still share.
    on: 'You always appear offline to buddies and group members, even while you study, and are on no leaderboard.',
    off: 'Buddies and group members see whether you are studying, on a break or offline right now.',
  },
  {
    key: 'shareCurrentSubject',
    label: 'Share what you are studying now',
    on: 'Buddies and group members see the subject of your running session.',
    off: 'Your current subject stays on this device.',
    stealthNote: 'Stealth mode hides this while you study.',
  },
  {
    key: 'shareTasks',
    label: "Share today's tasks",
    on: "Buddies see today's task list, and buddies and group members see the task you are working on.",
    off: 'Your tasks stay private: buddies see a lock instead.',
    stealthNote: "Stealth mode hides the task you work on now; buddies still see today's task list.",
  },
  {
    key: 'shareExactTime',
    label: 'Share your study time',
    on: "Buddies and group members see today's minutes; group members also see how long your current session has run.",
    off: 'Your minutes stay private, and you are on no leaderboard.',
    stealthNote:
      "Stealth mode hides how long your session has run and keeps you off leaderboards; today's minutes stay shared.",
  },
  {
    key: 'shareSubjectBreakdown',
    label: 'Share minutes per subject',
    on: "Buddies see today's minutes for each subject.",
    off: 'Buddies see a lock instead of your subjects.',
  },
  {
    key: 'shareQuestionCounts',
    label: 'Share question counts',
    on: 'Buddies see how many questions you answered today. With your study time shared too, leaderboards rank you by points.',
    off: 'Buddies see a lock instead of your question counts, and you are on no leaderboard.',
    stealthNote: "Stealth mode keeps you off leaderboards; buddies still see today's question counts.",
  },
];

export async function readEnrollment(): Promise<Enrollment> {
  const userId = await currentUserId();
  if (!userId) throw new CommunityError('signed_out', 'Sign in again.');
  const found = await rows(
    (await client()).from('community_enrollments').select(ENROLLMENT_COLUMNS).eq('user_id', userId).limit(1),
    enrollment,
  );
  const row = found[0];
  if (!row) throw new CommunityError('not_enrolled', 'Your community settings are missing on the server.');
  rememberConsent(userId, row.consent);
  return row;
}

async function updateEnrollment(patch: Record<string, unknown>): Promise<Enrollment> {
  const userId = await currentUserId();
  if (!userId) throw new CommunityError('signed_out', 'Sign in again.');
  const { data, error, status } = await (
    await client()
  )
    .from('community_enrollments')
    .update(patch)
    .eq('user_id', userId)
    .select(ENROLLMENT_COLUMNS);
  if (error) throw communityError(error, status);
  const row = enrollment.array().parse(data ?? [])[0];
  if (!row) throw new CommunityError('not_enrolled', 'Your community settings are missing on the server.');
  rememberConsent(userId, row.consent);
  return row;
}

export function saveConsent(consent: boolean): Promise<Enrollment> {
  return updateEnrollment({ consent, consented_at: consent ? new Date().toISOString() : null });
}

/** Writes all six switches at once: the database refuses a privacy object missing any of them. */
export function savePrivacy(privacy: PrivacySwitches): Promise<Enrollment> {
  return updateEnrollment({ privacy });
}

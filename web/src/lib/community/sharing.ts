// Who sees what of a student, under their consent and privacy switches, as the database decides
// it: the one description the privacy table, the consent card and the stealth switch all read, so
// the three cannot tell a student different things.
import type { Enrollment } from '#contracts/community-rows.ts';

export interface SharedItem {
  /** The table's row heading. */
  what: string;
  /** The same inside a sentence. */
  phrase: string;
  buddies: boolean | 'never';
  groups: boolean | 'never';
}

/** Every item about a student, and whether buddies and group members see it now. */
export function whoSeesWhat(enrollment: Enrollment): SharedItem[] {
  const p = enrollment.privacy;
  const live = enrollment.consent && !p.stealthMode;
  // Points reveal minutes plus correct answers, so leaderboards need both shared.
  const ranked = !p.stealthMode && p.shareExactTime && p.shareQuestionCounts;
  return [
    {
      what: 'Studying, on a break or offline, right now',
      phrase: 'whether you are studying right now',
      buddies: live,
      groups: live,
    },
    {
      what: 'The subject you study now',
      phrase: 'the subject you study now',
      buddies: live && p.shareCurrentSubject,
      groups: live && p.shareCurrentSubject,
    },
    {
      what: 'The task you work on now',
      phrase: 'the task you work on now',
      buddies: live && p.shareTasks,
      groups: live && p.shareTasks,
    },
    {
      what: 'How long your session has run',
      phrase: 'how long your session has run',
      buddies: 'never',
      groups: live && p.shareExactTime,
    },
    { what: "Today's minutes", phrase: "today's minutes", buddies: p.shareExactTime, groups: p.shareExactTime },
    {
      what: "Today's minutes per subject",
      phrase: "today's minutes per subject",
      buddies: p.shareSubjectBreakdown,
      groups: 'never',
    },
    {
      what: "Today's question counts",
      phrase: "today's question counts",
      buddies: p.shareQuestionCounts,
      groups: 'never',
    },
    { what: "Today's task list", phrase: "today's task list", buddies: p.shareTasks, groups: 'never' },
    {
      what: 'Your place on leaderboards (points)',
      phrase: 'your place on leaderboards',
      buddies: ranked,
      groups: ranked,
    },
  ];
}

function listed(parts: string[]): string {
  return parts.length < 2 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** "Buddies still see …; group members still see …", or that they see nothing, from the table. */
export function whatOthersStillSee(enrollment: Enrollment): string {
  const items = whoSeesWhat(enrollment);
  const buddies = items.filter((item) => item.buddies === true).map((item) => item.phrase);
  const groups = items.filter((item) => item.groups === true).map((item) => item.phrase);
  if (buddies.length === 0 && groups.length === 0)
    return 'Buddies and group members see nothing more of your studying.';
  if (listed(buddies) === listed(groups)) return `Buddies and group members still see ${listed(buddies)}.`;
  const parts = [
    buddies.length ? `buddies still see ${listed(buddies)}` : 'buddies see nothing more',
    groups.length ? `group members still see ${listed(groups)}` : 'group members see nothing more',
  ];
  const sentence = parts.join('; ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

/** The consent card's statement for the enrollment as it is. */
export function consentStatement(enrollment: Enrollment): string {
  return enrollment.consent
    ? 'On: while a focus session runs, this app tells the server you are studying, so your buddies and groups can see it as far as the switches below allow.'
    : `Off: your live status is never sent, so you appear offline to everyone. ${whatOthersStillSee(enrollment)}`;
}

/** The stealth switch's statement for the enrollment as it is. */
export function stealthStatement(enrollment: Enrollment): string {
  if (enrollment.privacy.stealthMode)
    return `You always appear offline to buddies and group members, even while you study, and are on no leaderboard. ${whatOthersStillSee(enrollment)}`;
  return enrollment.consent
    ? 'Buddies and group members see whether you are studying, on a break or offline right now.'
    : 'Once you take part in the community, buddies and group members see whether you are studying, on a break or offline right now.';
}

// How a group's join policy and visibility read on screen.
import type { JoinPolicy, Visibility } from '#contracts/community-rows.ts';

export function policyWord(policy: JoinPolicy): string {
  return policy === 'open' ? 'Anyone can join' : policy === 'request' ? 'Join by request' : 'Invite link only';
}

export const VISIBILITY_CHOICES: { value: Visibility; label: string; hint: string }[] = [
  { value: 'public', label: 'Public', hint: 'Anyone signed in on this server can find it in search.' },
  { value: 'private', label: 'Private', hint: 'Only members see it. Others cannot find it; they need an invite link.' },
];

export const POLICY_CHOICES: { value: JoinPolicy; label: string; hint: string }[] = [
  { value: 'open', label: 'Anyone can join', hint: 'Whoever finds the group joins at once.' },
  { value: 'request', label: 'By request', hint: 'Students ask to join; an owner accepts or declines.' },
  { value: 'invite', label: 'Invite link only', hint: 'Only people with a link from an owner can join.' },
];

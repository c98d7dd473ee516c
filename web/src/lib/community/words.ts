// Plain words for the codes the community's database functions raise, so no screen shows a raw
// code: what happened and, where there is one, what to do.
import { CommunityError } from './backend.ts';

const WORDS: Record<string, string> = {
  offline: 'The server cannot be reached. Check that studyhall is running on your computer, then try again.',
  signed_out: 'Your sign-in has expired. Sign in again.',
  not_authenticated: 'Your sign-in has expired. Sign in again.',
  not_allowed: 'You are not allowed to do that.',
  not_group_member: 'You are not a member of this group.',
  not_group_owner: 'Only an owner of this group can do that.',
  group_not_found: 'This group does not exist or is private.',
  invite_required: 'This group is joined with an invite link. Ask one of its owners for one.',
  last_owner: 'You are the only owner. Make another member an owner first, or delete the group.',
  cannot_remove_self: 'You cannot remove yourself. Leave the group instead.',
  cannot_demote_self: 'Hand ownership to someone else instead of demoting yourself.',
  invalid_role: 'A member is an owner, a moderator or a member.',
  invalid_message: 'A message is 1 to 2,000 characters.',
  message_not_found: 'That message is no longer there.',
  cannot_delete_message: "Only the sender, the group's owners and moderators can delete this message.",
  request_not_found: 'That request is no longer waiting.',
  invite_not_found: 'That invite no longer exists.',
  invalid_invite: 'This invite link does not work: it may be mistyped, expired, used up or revoked.',
  own_invite: 'This is your own invite link. Share it with someone else.',
  invalid_days: 'An invite lasts 1 to 365 days, or never expires.',
  invalid_max_uses: 'An invite admits 1 to 1,000 people, or has no limit.',
  user_not_found: 'No student has that handle. Check the spelling, or send them an invite link instead.',
  cannot_befriend_self: 'That is your own handle.',
  already_buddies: 'You are already buddies.',
  request_pending: 'A request between you is already waiting.',
  connection_not_found: 'You are not connected with this student any more.',
  target_not_found: 'Alerts are for your buddies and your groups only.',
  invalid_quiet_hours: 'Give both ends of the quiet hours, or neither.',
  invalid_reason: 'Say in a few words what is wrong (at most 2,000 characters).',
  not_enrolled: 'Your community settings are missing on the server. Reload the page.',
  unexpected_answer: 'The server answered in a way this version of the app does not understand. Reload the page.',
  '23514': 'Something is too long or empty. Check the fields and try again.',
};

export function describeCommunityError(error: unknown): string {
  if (!(error instanceof CommunityError)) return 'Something went wrong on this page. Try again.';
  return WORDS[error.code] ?? (error.message || 'The server refused this. Try again.');
}

export function codeOf(error: unknown): string | null {
  return error instanceof CommunityError ? error.code : null;
}

// The sentence the app shows for each code the database raises, keyed by the registry's sentence
// key (contracts/raised-codes.ts), so no screen shows a raw code: what happened and, where there is
// one, what to do. The type makes a key without a sentence a compile error. Plain data: the
// community's describer (community/words.ts) and the account screens read it.
import { raisedCode, type SentenceKey } from '#contracts/raised-codes.ts';
import { SESSION_REFUSALS } from './session-refusals.ts';

export const RAISED_CODE_SENTENCES: Record<SentenceKey, string> = {
  signed_out: 'Signed out on this device — sign in again.',
  app_out_of_date: 'This version of the app sent something the server does not accept. Reload the page and try again.',
  server_step_refused:
    'The server refused a step that only it or its admin console takes. Reload the page; if it happens again, tell whoever runs studyhall.',
  // Groups.
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
  // Invites.
  invite_not_found: 'That invite no longer exists.',
  invalid_invite: 'This invite link does not work: it may be mistyped, expired, used up or revoked.',
  own_invite: 'This is your own invite link. Share it with someone else.',
  invalid_days: 'An invite lasts 1 to 365 days, or never expires.',
  invalid_max_uses: 'An invite admits 1 to 1,000 people, or has no limit.',
  // Profile and buddies.
  invalid_handle: 'A handle is 3 to 24 letters, digits, underscores or dots.',
  handle_taken: 'Someone else already has that handle. Choose another one.',
  user_not_found: 'No student has that handle. Check the spelling, or send them an invite link instead.',
  cannot_befriend_self: 'That is your own handle.',
  already_buddies: 'You are already buddies.',
  request_pending: 'A request between you is already waiting.',
  connection_not_found: 'You are not connected with this student any more.',
  // Start alerts and push.
  target_not_found: 'Alerts are for your buddies and your groups only.',
  invalid_quiet_hours: 'Give both ends of the quiet hours, or neither.',
  push_token_refused:
    "This browser's notification address is not one the server accepts. Turn alerts off and on again.",
  // Study sessions: the outbox's own sentences, which say the session was not saved.
  ...SESSION_REFUSALS,
  invalid_void_reason: 'Say in a few words why the session is voided (at most 500 characters).',
  session_not_found: 'That study session no longer exists.',
  already_voided: 'That session was already voided; the first void stands.',
  // Moderation and the account.
  not_admin: 'Only an admin of studyhall can do that.',
  invalid_reason: 'Say in a few words what is wrong (at most 2,000 characters).',
  report_not_found: 'That report no longer exists.',
  report_already_resolved: 'That report was already handled.',
  invalid_resolution: 'That action does not fit this report.',
  invalid_confirmation: 'The word you typed is not the one asked for. Nothing was deleted.',
  storage_objects_remain:
    'Some files you uploaded (such as a group icon) are still stored. Remove them, then try again. Your account was not deleted.',
  last_admin_account:
    'You are the only admin of studyhall. Make someone else an admin first, then delete your account. Nothing was deleted.',
  password_required: 'Enter your password again to delete your account. Nothing was deleted.',
};

/** The sentence for a code the database raised (PostgREST's `message`), or undefined for any other code. */
export function sentenceOfRaisedCode(code: string): string | undefined {
  const raised = raisedCode(code);
  return raised ? RAISED_CODE_SENTENCES[raised.sentence] : undefined;
}

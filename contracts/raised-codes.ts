// Every code the database's functions raise (docs/database.md#raised-codes), written once: its
// SQLSTATE, the HTTP status the gateway answers when a wrapper route meets it, and the key of the
// sentence the web app shows for it. A function refuses with
// `raise exception '<code>' using errcode = 'P0xxx', hint = '...'`; PostgREST sends
// `{code: 'P0xxx', message: '<code>', hint}`, so the message is the stable code and the key here.
// tools/contracts/raised-codes.test.ts reads every migration and fails on a code raised there and
// missing here, or listed here and raised nowhere; docs/database.md's table is checked against it.

/** What a raised code means to the gateway and the web app. */
export interface RaisedCode {
  /**
   * The SQLSTATEs the migrations raise it with. Almost always one; a code two families of functions
   * raise keeps each family's state, since a landed migration is never edited.
   */
  readonly sqlstates: readonly string[];
  /** The gateway's HTTP status: always the caller's problem, so a 4xx. */
  readonly status: 400 | 401 | 403 | 404 | 409;
  /** The gateway's error code when it must differ from the raised code; else the raised code itself. */
  readonly gatewayCode?: string;
  /** The key of the sentence the web app shows; codes that mean the same to a student share one. */
  readonly sentence: string;
}

export const RAISED_CODES = {
  // P0001: a caller without the standing the function needs, and the admin console's refusals.
  not_authenticated: { sqlstates: ['P0001'], status: 401, sentence: 'signed_out' },
  not_group_member: { sqlstates: ['P0001'], status: 403, sentence: 'not_group_member' },
  invalid_payload: { sqlstates: ['P0001'], status: 400, sentence: 'server_step_refused' },
  backup_changed: { sqlstates: ['P0001'], status: 409, sentence: 'server_step_refused' },
  already_restored: { sqlstates: ['P0001'], status: 409, sentence: 'server_step_refused' },
  last_admin: { sqlstates: ['P0001'], status: 409, sentence: 'server_step_refused' },
  // P0002: nothing the caller may see has that id, handle or token.
  user_not_found: { sqlstates: ['P0002'], status: 404, sentence: 'user_not_found' },
  group_not_found: { sqlstates: ['P0002'], status: 404, sentence: 'group_not_found' },
  // Join requests answer P0002, buddy requests P0023 (community_respond_buddy).
  request_not_found: { sqlstates: ['P0002', 'P0023'], status: 404, sentence: 'request_not_found' },
  invite_not_found: { sqlstates: ['P0002'], status: 404, sentence: 'invite_not_found' },
  invalid_invite: { sqlstates: ['P0002'], status: 404, sentence: 'invalid_invite' },
  archive_not_found: { sqlstates: ['P0002'], status: 404, sentence: 'server_step_refused' },
  role_not_found: { sqlstates: ['P0002'], status: 404, sentence: 'server_step_refused' },
  // P0003-P0005: group ownership and membership rules.
  invite_required: { sqlstates: ['P0003'], status: 403, sentence: 'invite_required' },
  not_group_owner: { sqlstates: ['P0003'], status: 403, sentence: 'not_group_owner' },
  invalid_message: { sqlstates: ['P0004'], status: 400, sentence: 'invalid_message' },
  cannot_remove_self: { sqlstates: ['P0004'], status: 400, sentence: 'cannot_remove_self' },
  invalid_role: { sqlstates: ['P0004'], status: 400, sentence: 'invalid_role' },
  cannot_demote_self: { sqlstates: ['P0004'], status: 400, sentence: 'cannot_demote_self' },
  invalid_days: { sqlstates: ['P0004'], status: 400, sentence: 'invalid_days' },
  invalid_max_uses: { sqlstates: ['P0004'], status: 400, sentence: 'invalid_max_uses' },
  // Invites and reports answer P0004, start alerts P0060 (community_set_start_alert).
  invalid_target: { sqlstates: ['P0004', 'P0060'], status: 400, sentence: 'app_out_of_date' },
  invalid_invite_type: { sqlstates: ['P0004'], status: 400, sentence: 'app_out_of_date' },
  own_invite: { sqlstates: ['P0004'], status: 400, sentence: 'own_invite' },
  invalid_reason: { sqlstates: ['P0004'], status: 400, sentence: 'invalid_reason' },
  last_owner: { sqlstates: ['P0005'], status: 409, sentence: 'last_owner' },
  // P0010-P0012: the profile's handle and privacy switches.
  invalid_handle: { sqlstates: ['P0010'], status: 400, sentence: 'invalid_handle' },
  handle_taken: { sqlstates: ['P0011'], status: 409, sentence: 'handle_taken' },
  invalid_privacy: { sqlstates: ['P0012'], status: 400, sentence: 'app_out_of_date' },
  // P0020-P0024: buddies.
  cannot_befriend_self: { sqlstates: ['P0020'], status: 400, sentence: 'cannot_befriend_self' },
  already_buddies: { sqlstates: ['P0021'], status: 409, sentence: 'already_buddies' },
  request_pending: { sqlstates: ['P0022'], status: 409, sentence: 'request_pending' },
  connection_not_found: { sqlstates: ['P0024'], status: 404, sentence: 'connection_not_found' },
  // P0030: presence.
  invalid_state: { sqlstates: ['P0030'], status: 400, sentence: 'app_out_of_date' },
  // P0050-P0059: study sessions that could not have happened, and voiding one (admins only).
  invalid_session: { sqlstates: ['P0050'], status: 400, sentence: 'invalid_session' },
  too_many_minutes: { sqlstates: ['P0051'], status: 400, sentence: 'too_many_minutes' },
  session_in_future: { sqlstates: ['P0052'], status: 400, sentence: 'session_in_future' },
  minutes_exceed_duration: { sqlstates: ['P0053'], status: 400, sentence: 'minutes_exceed_duration' },
  session_overlaps: { sqlstates: ['P0054'], status: 409, sentence: 'session_overlaps' },
  too_many_answers: { sqlstates: ['P0055'], status: 400, sentence: 'too_many_answers' },
  invalid_void_reason: { sqlstates: ['P0057'], status: 400, sentence: 'invalid_void_reason' },
  session_not_found: { sqlstates: ['P0058'], status: 404, sentence: 'session_not_found' },
  already_voided: { sqlstates: ['P0059'], status: 409, sentence: 'already_voided' },
  // P0060-P0063: start alerts and push device tokens.
  invalid_quiet_hours: { sqlstates: ['P0061'], status: 400, sentence: 'invalid_quiet_hours' },
  target_not_found: { sqlstates: ['P0062'], status: 404, sentence: 'target_not_found' },
  // A push device token, not the caller's access token (which is the gateway's 401 invalid_token).
  invalid_token: {
    sqlstates: ['P0063'],
    status: 400,
    gatewayCode: 'invalid_device_token',
    sentence: 'push_token_refused',
  },
  // P0070-P0073: delivering start alerts (service role only) and the push at the end of a timer phase.
  invalid_claim: { sqlstates: ['P0070'], status: 400, sentence: 'server_step_refused' },
  invalid_retry: { sqlstates: ['P0071'], status: 400, sentence: 'server_step_refused' },
  invalid_keep: { sqlstates: ['P0072'], status: 400, sentence: 'server_step_refused' },
  invalid_phase_end: { sqlstates: ['P0073'], status: 400, sentence: 'app_out_of_date' },
  // P0090-P0101: moderation, the audit log and account deletion.
  message_not_found: { sqlstates: ['P0090'], status: 404, sentence: 'message_not_found' },
  cannot_delete_message: { sqlstates: ['P0091'], status: 403, sentence: 'cannot_delete_message' },
  not_admin: { sqlstates: ['P0092'], status: 403, sentence: 'not_admin' },
  report_not_found: { sqlstates: ['P0093'], status: 404, sentence: 'report_not_found' },
  report_already_resolved: { sqlstates: ['P0094'], status: 409, sentence: 'report_already_resolved' },
  invalid_resolution: { sqlstates: ['P0095'], status: 400, sentence: 'invalid_resolution' },
  audit_log_immutable: { sqlstates: ['P0096'], status: 403, sentence: 'server_step_refused' },
  invalid_confirmation: { sqlstates: ['P0097'], status: 400, sentence: 'invalid_confirmation' },
  storage_objects_remain: { sqlstates: ['P0098'], status: 409, sentence: 'storage_objects_remain' },
  invalid_audit_entry: { sqlstates: ['P0099'], status: 400, sentence: 'server_step_refused' },
  last_admin_account: { sqlstates: ['P0100'], status: 409, sentence: 'last_admin_account' },
  // P0101-P0102: the admin console's own checks and role rows (service role only).
  not_check_account: { sqlstates: ['P0101'], status: 409, sentence: 'server_step_refused' },
  own_admin_row: { sqlstates: ['P0102'], status: 409, sentence: 'server_step_refused' },
  // P0103: account deletion.
  password_required: { sqlstates: ['P0103'], status: 403, sentence: 'password_required' },
  // P0110-P0114: the gateways' shared state (service role only; a gateway's own calls).
  invalid_rate_window: { sqlstates: ['P0110'], status: 400, sentence: 'server_step_refused' },
  invalid_login_attempt: { sqlstates: ['P0111'], status: 400, sentence: 'server_step_refused' },
  invalid_admin_session: { sqlstates: ['P0112'], status: 400, sentence: 'server_step_refused' },
  invalid_push_identity: { sqlstates: ['P0113'], status: 400, sentence: 'server_step_refused' },
  invalid_relay_call: { sqlstates: ['P0114'], status: 400, sentence: 'server_step_refused' },
  // 42501, not P0xxx: a stored object whose owner is gone or banned is refused as a policy refuses
  // it, so Storage answers its own AccessDenied (403) on every path, a hosted storage-api's included.
  storage_owner_inactive: { sqlstates: ['42501'], status: 403, gatewayCode: 'forbidden', sentence: 'signed_out' },
} as const satisfies Record<string, RaisedCode>;

export type RaisedCodeName = keyof typeof RAISED_CODES;

/** Every sentence key the registry names: the web app has a sentence for each (a test checks). */
export type SentenceKey = (typeof RAISED_CODES)[RaisedCodeName]['sentence'];

/**
 * The registry's entry for a raised code (PostgREST's `message`), or undefined for any other
 * text. Only the registry's own keys count: a backend may send `__proto__` or `constructor`.
 */
export function raisedCode(message: string): (RaisedCode & { readonly sentence: SentenceKey }) | undefined {
  return Object.hasOwn(RAISED_CODES, message) ? RAISED_CODES[message as RaisedCodeName] : undefined;
}

// Ended admin console sessions kept in the database every server of a district reads
// (gateway_end_admin_session and its siblings, supabase/migrations/*_gateway_admin_sessions.sql):
// a logout on one server refuses the cookie on all of them from the moment the logout answers,
// since each use of a cookie asks the database. A session is named by the same digest of its
// signed value as in one server's list (ended-sessions.ts), never by the value.
import { z } from 'zod';
import type { SharedState } from '../district/shared-state.ts';
import { sessionId, type EndedSessionStore } from './ended-sessions.ts';

export class SharedEndedSessions implements EndedSessionStore {
  constructor(private readonly state: SharedState) {}

  async isEnded(signedValue: string, userId: string | undefined, issuedAtS: number, nowS: number): Promise<boolean> {
    const answer = await this.state.call('gateway_admin_session_ended', {
      p_id: sessionId(signedValue),
      p_user_id: userId ?? null,
      p_issued_at_s: issuedAtS,
      p_now_s: nowS,
    });
    return z.boolean().parse(answer);
  }

  async end(signedValue: string, expiresAtS: number): Promise<void> {
    await this.state.call('gateway_end_admin_session', { p_id: sessionId(signedValue), p_expires_at_s: expiresAtS });
  }

  async endAccount(userId: string, nowS: number): Promise<void> {
    await this.state.call('gateway_end_admin_account', { p_user_id: userId, p_ended_at_s: nowS });
  }
}

// Whether a console session opened with a backend account still stands. A cookie is proof of who
// signed in, not of what she may still do: the account can be banned or deleted (on the Users page,
// through the auth admin API, by SQL), its admin row revoked, its address taken out of ADMIN_EMAILS
// or its confirmation withdrawn. So every request of an account session is checked in two parts:
//
// - The account itself is asked of the backend's auth admin API on every request (one call): a
//   deleted account, or one banned for any length of time, has lost the console from that very
//   request on. This part is never cached, because nothing the gateway holds changes when a ban is
//   set by SQL or by another client.
// - The login's rule (an admin row, or a confirmed ADMIN_EMAILS address; the address the account has
//   now, as the login would read it) is asked again at most once per recheckMs. A revoke on the Roles
//   page ends the sessions itself (roles-routes.ts); a row deleted by SQL is seen within recheckMs.
//
// When either part fails, every console session of that account issued until now ends
// (admin-cookie.ts endAccountSessions): lifting a ban later does not bring them back, she signs in
// again. Sessions opened with ADMIN_SECRET belong to no account and need no check: the secret itself
// is the standing. A backend that cannot answer leaves the standing unknown: that request gets no
// admin rights (the caller answers 503), the sessions are not ended, and the next request asks again.
import type { FastifyBaseLogger } from 'fastify';
import type { BackendClient } from '../backend/backend-client.ts';
import { GatewayError } from '../http-errors.ts';
import {
  adminSessionFromCookieHeader,
  endAccountSessions,
  subjectUserId,
  type AdminGate,
  type AdminSession,
} from './admin-cookie.ts';
import { findAccount, isBannedAt } from './backend-users.ts';
import { hasAdminRow } from './login/admin-login.ts';
import { isEmailConfirmed } from './roles/email-confirmations.ts';

/** How long a confirmed admin row or address is trusted before the backend is asked again. */
export const ADMIN_STANDING_RECHECK_MS = 30_000;

/** stands: the session may act; lost: its account's sessions were ended; unknown: the backend did not answer. */
export type StandingVerdict = 'stands' | 'lost' | 'unknown';

type LostBecause = 'account_deleted' | 'account_banned' | 'not_an_admin';

export class AdminStanding {
  /** subject → when the login's rule last held for it. */
  private readonly ruleHeldAt = new Map<string, number>();

  constructor(
    private readonly options: {
      gate: AdminGate;
      backend: BackendClient;
      /** ADMIN_EMAIL and ADMIN_EMAILS, lower case. */
      allowedEmails: readonly string[];
      recheckMs?: number;
      now?: () => number;
    },
  ) {}

  /** Whether the session may act on this request; a lost standing ends the account's sessions first. */
  async verdict(session: AdminSession, log?: FastifyBaseLogger): Promise<StandingVerdict> {
    const userId = subjectUserId(session.subject);
    if (!userId) return 'stands';
    const now = (this.options.now ?? Date.now)();
    let lostBecause: LostBecause | undefined;
    try {
      lostBecause = await this.lostBecause(session.subject, userId, now);
    } catch (error) {
      log?.warn(
        { err: error, user_id: userId },
        'admin standing could not be checked; this request has no admin rights',
      );
      return 'unknown';
    }
    if (lostBecause === undefined) return 'stands';
    this.ruleHeldAt.delete(session.subject);
    await endAccountSessions(this.options.gate, userId, Math.floor(now / 1000));
    log?.info(
      { user_id: userId, reason: lostBecause },
      "admin standing lost; the account's console sessions were ended",
    );
    return 'lost';
  }

  /** The admin session a raw Cookie header carries, if its standing holds for this request. */
  async standingSession(cookieHeader: string | undefined, log?: FastifyBaseLogger): Promise<AdminSession | undefined> {
    const session = await adminSessionFromCookieHeader(this.options.gate, cookieHeader);
    return session && (await this.verdict(session, log)) === 'stands' ? session : undefined;
  }

  private async lostBecause(subject: string, userId: string, now: number): Promise<LostBecause | undefined> {
    const backend = this.options.backend.forRoute();
    const account = await findAccount(backend, userId);
    if (!account) return 'account_deleted';
    if (isBannedAt(account.banned_until, now)) return 'account_banned';
    const heldAt = this.ruleHeldAt.get(subject);
    if (heldAt !== undefined && now - heldAt < (this.options.recheckMs ?? ADMIN_STANDING_RECHECK_MS)) return undefined;
    if (!(await this.ruleHolds(backend, userId, account.email ?? ''))) return 'not_an_admin';
    this.ruleHeldAt.set(subject, now);
    return undefined;
  }

  /** The login's rule (admin-login.ts verifyBackendSession) without the token: the account is known. */
  private async ruleHolds(backend: BackendClient, userId: string, email: string): Promise<boolean> {
    if (email !== '' && this.options.allowedEmails.includes(email) && (await isEmailConfirmed(backend, userId, email)))
      return true;
    return hasAdminRow(backend, userId);
  }
}

/** The answer to a request whose admin standing the backend could not confirm. */
export function standingUnknown(): GatewayError {
  return new GatewayError(
    503,
    'admin_standing_unknown',
    'The backend did not answer whether this admin account may still use the console; nothing was done. Try again.',
  );
}

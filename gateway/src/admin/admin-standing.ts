// Whether a console session opened with a backend account still stands. A cookie is proof of who
// signed in, not of what they may still do: an admin row can be deleted (on the roles page, by SQL,
// by another client) and an address can leave ADMIN_EMAILS or lose its confirmation. So the rule
// of the login is asked again for an account session at most once per recheckMs; when it no longer
// holds, every console session of that account ends (admin-cookie.ts endAccountSessions) and the
// request goes on as a stranger's. Sessions opened with ADMIN_SECRET need no recheck: the secret
// itself is the standing. A backend that cannot answer keeps the session (the request will fail on
// that backend anyway) and is asked again on the next request.
import type { FastifyBaseLogger } from 'fastify';
import type { BackendClient } from '../backend/backend-client.ts';
import { endAccountSessions, subjectUserId, type AdminSession } from './admin-cookie.ts';
import type { AdminGate } from './admin-cookie.ts';
import { hasAdminRow } from './login/admin-login.ts';
import { isEmailConfirmed } from './roles/email-confirmations.ts';

/** How long a confirmed standing is trusted before the backend is asked again. */
export const ADMIN_STANDING_RECHECK_MS = 30_000;

/** `user:<id>:<email>` → the e-mail part (lower case, as the login stored it). */
function subjectEmail(subject: string): string {
  return subject.split(':').slice(2).join(':');
}

export class AdminStanding {
  private readonly confirmedAt = new Map<string, number>();

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

  /** true while the session's account may still use the console; false once its sessions ended. */
  async stands(session: AdminSession, log?: FastifyBaseLogger): Promise<boolean> {
    const userId = subjectUserId(session.subject);
    if (!userId) return true;
    const now = (this.options.now ?? Date.now)();
    const checkedAt = this.confirmedAt.get(session.subject);
    if (checkedAt !== undefined && now - checkedAt < (this.options.recheckMs ?? ADMIN_STANDING_RECHECK_MS)) return true;
    let allowed: boolean;
    try {
      allowed = await this.stillAllowed(userId, subjectEmail(session.subject));
    } catch (error) {
      log?.warn({ err: error }, 'admin standing could not be rechecked; the session is kept for now');
      return true;
    }
    if (allowed) {
      this.confirmedAt.set(session.subject, now);
      return true;
    }
    this.confirmedAt.delete(session.subject);
    endAccountSessions(this.options.gate, userId, Math.floor(now / 1000));
    log?.info({ user_id: userId }, "admin standing lost; the account's console sessions were ended");
    return false;
  }

  /** The login's rule (admin-login.ts verifyBackendSession) without the token: the account is known. */
  private async stillAllowed(userId: string, email: string): Promise<boolean> {
    const backend = this.options.backend.forRoute();
    if (email !== '' && this.options.allowedEmails.includes(email) && (await isEmailConfirmed(backend, userId, email)))
      return true;
    return hasAdminRow(backend, userId);
  }
}

// Admin sessions that were logged out before their cookie expired. A signed cookie stays valid on
// its own until its 12 hours are up, so logging out must be remembered on the server: each ended
// session is kept (as a digest of its signed value, never the value itself) until the time its
// cookie would have expired anyway. With ADMIN_SECRET the cookie outlives a restart, so the list
// does too: it is written to a file in DATA_DIR (mode 0600, replaced whole by a rename, so a crash
// mid-write leaves the previous list). Without ADMIN_SECRET a restart draws a new key and ends
// every session by itself, and the list is kept in memory only.
//
// An account can be ended as a whole too (banned, deleted, its admin role revoked, its e-mail no
// longer allowed): every cookie of that account issued up to that moment is refused, whichever
// browser holds it. Those entries are kept 12 hours, the longest any such cookie could still live.
//
// That is one server's list. Servers that share their state (a district, docs/deployment.md) keep
// it in the database instead (shared-ended-sessions.ts), behind the same EndedSessionStore.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const ENDED_SESSIONS_FILE = 'admin-ended-sessions.json';

/** How long an ended account is remembered: no cookie issued before it can live longer. */
const ACCOUNT_MEMORY_S = 12 * 60 * 60;

const storedList = z.object({
  ended: z.array(z.object({ id: z.string().regex(/^[0-9a-f]{64}$/), expires_at_s: z.number().int() })),
  // Absent in lists written before accounts could be ended.
  accounts: z.array(z.object({ user_id: z.string().min(1).max(64), ended_at_s: z.number().int() })).default([]),
});

/** Where ended sessions are remembered, asked on every use of a cookie. */
export interface EndedSessionStore {
  /** Whether a cookie was logged out, or its account's sessions ended at or after it was issued. */
  isEnded(signedValue: string, userId: string | undefined, issuedAtS: number, nowS: number): Promise<boolean>;
  /** Remembers a logged-out session until its cookie expires; done before the logout answers. */
  end(signedValue: string, expiresAtS: number, nowS: number): Promise<void>;
  /** Ends every session of an account issued up to nowS. */
  endAccount(userId: string, nowS: number): Promise<void>;
}

/** The id an ended session is remembered by: a digest of the whole signed cookie value. */
export function sessionId(signedValue: string): string {
  return createHash('sha256').update(signedValue, 'utf8').digest('hex');
}

export class EndedAdminSessions implements EndedSessionStore {
  private readonly ended = new Map<string, number>();
  /** user id → the second its account was ended; cookies issued up to then are refused. */
  private readonly endedAccounts = new Map<string, number>();

  /** file: where the list survives restarts; undefined keeps it in memory. A file that cannot be read is an error at boot. */
  constructor(private readonly file: string | undefined) {
    if (!file) return;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    // A list that is not ours (hand-edited, truncated) would silently re-open logged-out sessions if ignored.
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = storedList.safeParse(json);
    if (!parsed.success)
      throw new Error(`${file} is not a list of ended admin sessions; remove it to end every admin session instead`);
    for (const entry of parsed.data.ended) this.ended.set(entry.id, entry.expires_at_s);
    for (const entry of parsed.data.accounts) this.endedAccounts.set(entry.user_id, entry.ended_at_s);
  }

  async isEnded(signedValue: string, userId: string | undefined, issuedAtS: number, nowS: number): Promise<boolean> {
    return this.has(signedValue, nowS) || (userId !== undefined && this.endsAccountSession(userId, issuedAtS));
  }

  has(signedValue: string, nowS: number): boolean {
    const expiresAtS = this.ended.get(sessionId(signedValue));
    return expiresAtS !== undefined && expiresAtS >= nowS;
  }

  /** Whether the account's sessions were ended at or after a cookie issued at issuedAtS. */
  endsAccountSession(userId: string, issuedAtS: number): boolean {
    const endedAtS = this.endedAccounts.get(userId);
    return endedAtS !== undefined && issuedAtS <= endedAtS;
  }

  /** Remembers a logged-out session until its cookie expires; written before the logout answers. */
  async end(signedValue: string, expiresAtS: number, nowS: number): Promise<void> {
    this.ended.set(sessionId(signedValue), expiresAtS);
    this.save(nowS);
  }

  /** Ends every session of an account issued up to now; a later login starts a new one. */
  async endAccount(userId: string, nowS: number): Promise<void> {
    this.endedAccounts.set(userId, nowS);
    this.save(nowS);
  }

  private save(nowS: number): void {
    for (const [id, at] of this.ended) if (at < nowS) this.ended.delete(id);
    for (const [userId, at] of this.endedAccounts) if (at + ACCOUNT_MEMORY_S < nowS) this.endedAccounts.delete(userId);
    if (!this.file) return;
    const list = {
      ended: [...this.ended].map(([id, at]) => ({ id, expires_at_s: at })),
      accounts: [...this.endedAccounts].map(([userId, at]) => ({ user_id: userId, ended_at_s: at })),
    };
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(list)}\n`, { mode: 0o600 });
    renameSync(temporary, this.file);
  }

  get size(): number {
    return this.ended.size;
  }
}

// The per-account budget of failed password attempts, across every address: the per-address budget
// (rate-limits.ts) alone lets a crowd of addresses, or one address that changes its own, guess one
// account's password without end. Both ways to try a password count against the same budget:
// POST /__auth/login and the password grant sent straight to /__backend/auth/v1/token.
//
// A window opens at an account's first attempt; after `max` failures in it (attempts still waiting
// for the backend's answer count as failures until they are known), every password attempt
// for that account is refused with 429 rate_limited until the window ends, the right password
// included (otherwise the guessing would simply go on). That is the trade: while someone guesses,
// the owner is locked out for at most one window too. A successful login resets nothing, so an
// owner who signs in meanwhile does not re-open the account to an attack in progress.
//
// AccountLoginBudget counts in this server's memory; servers that share their state (a district,
// docs/deployment.md) count in the database instead (shared-account-login-budget.ts), with the same
// rules, behind AccountLoginLimiter.
import type { FastifyReply } from 'fastify';
import { sendError } from '../http-errors.ts';
import type { Budget } from './rate-limits.ts';

/** 10 failed passwords per account per 15 minutes, from all addresses together. */
export const DEFAULT_ACCOUNT_LOGIN_BUDGET: Budget = { max: 10, windowMs: 15 * 60_000 };

/** Accounts remembered at most; beyond it the oldest windows are dropped (memory stays bounded). */
const MAX_TRACKED_ACCOUNTS = 100_000;

export interface AccountLock {
  retryAfterS: number;
  limit: number;
  windowS: number;
}

/** How an account is named in a password attempt: its e-mail (or phone), trimmed and lower-cased. */
export function accountKey(identifier: unknown): string | undefined {
  if (typeof identifier !== 'string') return undefined;
  const key = identifier.trim().toLowerCase();
  return key.length > 0 && key.length <= 320 ? key : undefined;
}

/** One password attempt in progress: settle it once with its outcome (only a wrong password counts). */
export type AttemptSettler = (wrongPassword: boolean) => void;

/** A password attempt's start: the lock when the account's budget is spent, else its settler. */
export type AttemptStart = { lock: AccountLock } | { settle: AttemptSettler };

export interface AccountLoginLimiter {
  readonly budget: Budget;
  /**
   * Starts a password attempt for an account. Attempts still waiting for the backend count against
   * the budget too, so a burst of parallel guesses cannot all pass before the first failure is known.
   */
  begin(account: string): Promise<AttemptStart>;
}

export class AccountLoginBudget implements AccountLoginLimiter {
  private readonly windows = new Map<string, { failures: number; inFlight: number; startedAt: number }>();

  constructor(
    readonly budget: Budget,
    private readonly now: () => number = Date.now,
  ) {}

  async begin(account: string): Promise<AttemptStart> {
    const window = this.currentWindow(account);
    if (window.failures + window.inFlight >= this.budget.max) {
      const retryAfterS = Math.max(1, Math.ceil((window.startedAt + this.budget.windowMs - this.now()) / 1000));
      return { lock: { retryAfterS, limit: this.budget.max, windowS: Math.round(this.budget.windowMs / 1000) } };
    }
    window.inFlight++;
    let settled = false;
    return {
      settle: (wrongPassword) => {
        if (settled) return;
        settled = true;
        window.inFlight--;
        // A failure is counted in the window the attempt began in, unless that one has ended.
        if (wrongPassword) (this.windows.get(account) === window ? window : this.currentWindow(account)).failures++;
        else if (window.failures === 0 && window.inFlight === 0 && this.windows.get(account) === window)
          this.windows.delete(account);
      },
    };
  }

  get trackedAccounts(): number {
    return this.windows.size;
  }

  private currentWindow(account: string): { failures: number; inFlight: number; startedAt: number } {
    const now = this.now();
    const existing = this.windows.get(account);
    if (existing && now < existing.startedAt + this.budget.windowMs) return existing;
    this.windows.delete(account);
    if (this.windows.size >= MAX_TRACKED_ACCOUNTS) this.forgetEnded(now);
    const fresh = { failures: 0, inFlight: 0, startedAt: now };
    this.windows.set(account, fresh);
    return fresh;
  }

  private forgetEnded(now: number): void {
    for (const [account, window] of this.windows)
      if (now >= window.startedAt + this.budget.windowMs) this.windows.delete(account);
    // Still full: the windows opened longest ago go first (a Map keeps insertion order).
    for (const account of this.windows.keys()) {
      if (this.windows.size < MAX_TRACKED_ACCOUNTS) break;
      this.windows.delete(account);
    }
  }
}

export const ACCOUNT_LOCKED_MESSAGE = 'Too many wrong passwords for this account from any address';

/** The 429 of a locked account, with Retry-After. */
export function sendAccountLocked(reply: FastifyReply, lock: AccountLock): FastifyReply {
  reply.header('retry-after', String(lock.retryAfterS));
  return sendError(reply, 429, 'rate_limited', `${ACCOUNT_LOCKED_MESSAGE}; try again in ${lock.retryAfterS} s.`, {
    retry_after_s: lock.retryAfterS,
    limit: lock.limit,
    window_s: lock.windowS,
    scope: 'account',
  });
}

/** Whether a token request through /__backend is a password grant (GoTrue reads the first grant_type; any may be). */
export function isPasswordGrant(query: string): boolean {
  return new URLSearchParams(query).getAll('grant_type').some((grant) => grant.trim().toLowerCase() === 'password');
}

/**
 * The account a password grant's JSON body names. GoTrue decodes JSON field names without regard
 * to case, and the last of repeated fields wins, so the same reading is done here: `{"EMAIL": ...}`
 * is not a way around the budget.
 */
export function passwordGrantAccount(body: Buffer): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
  let email: unknown;
  let phone: unknown;
  for (const [name, value] of Object.entries(json)) {
    const lower = name.toLowerCase();
    if (lower === 'email') email = value;
    else if (lower === 'phone') phone = value;
  }
  return accountKey(email) ?? accountKey(phone);
}

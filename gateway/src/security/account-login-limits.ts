// The per-account budget of failed password attempts, across every address: the per-address budget
// (rate-limits.ts) alone lets a crowd of addresses, or one address that changes its own, guess one
// account's password without end. Both ways to try a password count against the same budget:
// POST /__auth/login and the password grant sent straight to /__backend/auth/v1/token.
//
// A window opens at an account's first failure; after `max` failures in it, every password attempt
// for that account is refused with 429 rate_limited until the window ends, the right password
// included (otherwise the guessing would simply go on). That is the trade: while someone guesses,
// the owner is locked out for at most one window too. A successful login resets nothing, so an
// owner who signs in meanwhile does not re-open the account to an attack in progress.
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

export class AccountLoginBudget {
  private readonly windows = new Map<string, { failures: number; startedAt: number }>();

  constructor(
    readonly budget: Budget,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the account may try a password now; the lock when not. */
  lockOf(account: string): AccountLock | undefined {
    const window = this.windows.get(account);
    if (!window) return undefined;
    const endsAt = window.startedAt + this.budget.windowMs;
    const now = this.now();
    if (now >= endsAt) {
      this.windows.delete(account);
      return undefined;
    }
    if (window.failures < this.budget.max) return undefined;
    return { retryAfterS: Math.max(1, Math.ceil((endsAt - now) / 1000)), limit: this.budget.max, windowS: Math.round(this.budget.windowMs / 1000) };
  }

  recordFailure(account: string): void {
    const now = this.now();
    const window = this.windows.get(account);
    if (window && now < window.startedAt + this.budget.windowMs) {
      window.failures++;
      return;
    }
    this.windows.delete(account);
    if (this.windows.size >= MAX_TRACKED_ACCOUNTS) this.forgetEnded(now);
    this.windows.set(account, { failures: 1, startedAt: now });
  }

  get trackedAccounts(): number {
    return this.windows.size;
  }

  private forgetEnded(now: number): void {
    for (const [account, window] of this.windows) if (now >= window.startedAt + this.budget.windowMs) this.windows.delete(account);
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

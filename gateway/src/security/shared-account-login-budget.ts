// The per-account budget of wrong passwords (account-login-limits.ts explains its rules), counted in
// the database every server of a district shares (gateway_begin_password_attempt and
// gateway_settle_password_attempt): ten wrong passwords spread over several servers lock the
// account as ten on one server do. The account is named by a digest of its e-mail, never the e-mail.
//
// An attempt is settled without waiting (the answer to the caller does not wait for the count); until
// its settling lands, it still counts as in flight, so the budget errs on the side of refusing. A
// settling that fails is logged, and the attempt stops counting as in flight after ATTEMPT_MS.
import { z } from 'zod';
import { sharedKey, type SharedState, type SharedStateLog } from '../district/shared-state.ts';
import type { AccountLoginLimiter, AttemptStart } from './account-login-limits.ts';
import type { Budget } from './rate-limits.ts';

/** How long an unsettled attempt counts as in flight: longer than any backend call a login waits for. */
export const ATTEMPT_MS = 60_000;

const started = z.union([
  z.object({ locked: z.literal(true), retry_after_ms: z.number().int().nonnegative() }),
  z.object({ locked: z.literal(false), generation: z.number().int().positive() }),
]);

export class SharedAccountLoginBudget implements AccountLoginLimiter {
  constructor(
    readonly budget: Budget,
    private readonly state: SharedState,
    private readonly log: SharedStateLog,
  ) {}

  async begin(account: string): Promise<AttemptStart> {
    const key = sharedKey('account-login', account);
    const answer = started.parse(
      await this.state.call('gateway_begin_password_attempt', {
        p_account: key,
        p_max: this.budget.max,
        p_window_ms: this.budget.windowMs,
        p_attempt_ms: ATTEMPT_MS,
      }),
    );
    if (answer.locked) {
      return {
        lock: {
          retryAfterS: Math.max(1, Math.ceil(answer.retry_after_ms / 1000)),
          limit: this.budget.max,
          windowS: Math.round(this.budget.windowMs / 1000),
        },
      };
    }
    let settled = false;
    return {
      settle: (wrongPassword) => {
        if (settled) return;
        settled = true;
        this.state
          .call('gateway_settle_password_attempt', {
            p_account: key,
            p_generation: answer.generation,
            p_wrong_password: wrongPassword,
            p_window_ms: this.budget.windowMs,
          })
          .catch((error: unknown) =>
            this.log.warn(
              { err: error },
              'a password attempt could not be counted; it counts as in flight until it lapses',
            ),
          );
      },
    };
  }
}

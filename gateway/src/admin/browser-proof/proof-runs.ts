// The browser proof's runs and reports: the only state of this route family. A run token is 32
// random bytes, base64url; only its SHA-256 is kept, it is valid 10 minutes and spent by the one
// report it authorises. A run may ask for one temporary account for its login round trip; that
// account is deleted when the report arrives, when the run expires, or when the server stops.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ProofCheck as ContractProofCheck, ProofReport as ContractProofReport } from '#contracts/admin-api.ts';
import type { BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { createTemporaryAccount, deleteAccount, type TemporaryAccount } from '../backend-users.ts';

export const KEPT_REPORTS = 10;

interface Run {
  id: string;
  subject: string;
  expiresAt: number;
  used: boolean;
  account: TemporaryAccount | undefined;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const checkText = z.string().max(1000);
export const proofReportBody = z.object({
  run_token: z.string().min(43).max(64),
  user_agent: z.string().max(400).default(''),
  checks: z.object({
    service_worker: z.object({
      ok: z.boolean(),
      registered: z.boolean(),
      controlled: z.boolean(),
      scope: z.string().max(500).nullable(),
      detail: checkText,
    }),
    indexeddb: z.object({
      ok: z.boolean(),
      kept_value: z.boolean(),
      persisted: z.boolean().nullable(),
      detail: checkText,
    }),
    login: z.object({
      ok: z.boolean(),
      status: z.number().int().nullable(),
      user_matches: z.boolean(),
      detail: checkText,
    }),
  }),
});
export type ProofReportBody = z.infer<typeof proofReportBody>;

/** A check of a run as reports carry it (contracts/admin-api.ts), named as this server names them. */
export type ProofCheck = Omit<ContractProofCheck, 'name'> & { name: 'service_worker' | 'indexeddb' | 'login' };

export type ProofReport = Omit<ContractProofReport, 'checks'> & { checks: ProofCheck[] };

const signedInUser = z.object({ last_sign_in_at: z.string().nullish() }).loose();

export class BrowserProofRuns {
  private readonly runs = new Map<string, Run>();
  private readonly recent: ProofReport[] = [];
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly backend: BackendClient,
    private readonly options: { ttlMs: number; now: () => number },
  ) {
    this.sweeper = setInterval(() => void this.sweep(), 60_000);
    this.sweeper.unref();
  }

  start(subject: string): { token: string; runId: string; expiresAt: string } {
    void this.sweep();
    const token = randomBytes(32).toString('base64url');
    const run: Run = {
      id: hashToken(token).slice(0, 12),
      subject,
      expiresAt: this.options.now() + this.options.ttlMs,
      used: false,
      account: undefined,
    };
    this.runs.set(hashToken(token), run);
    return { token, runId: run.id, expiresAt: new Date(run.expiresAt).toISOString() };
  }

  /** The run a token names, if it may still be used. */
  private usable(token: string): Run {
    const run = this.runs.get(hashToken(token));
    if (!run)
      throw new GatewayError(
        403,
        'run_token_invalid',
        'This run token is not one this server issued (or the server restarted); open the browser proof again.',
      );
    if (run.used)
      throw new GatewayError(
        409,
        'run_token_used',
        'This run token has already reported; open the browser proof again for a new run.',
      );
    if (this.options.now() > run.expiresAt)
      throw new GatewayError(
        410,
        'run_token_expired',
        'This run token expired (runs last 10 minutes); open the browser proof again.',
      );
    return run;
  }

  /** The temporary account of a run, created on first request. */
  async account(token: string): Promise<TemporaryAccount> {
    await this.sweep();
    const run = this.usable(token);
    run.account ??= await createTemporaryAccount(this.backend, 'browser-proof');
    return run.account;
  }

  /** Records a report: spends the token, confirms the sign-in with the backend, deletes the account. */
  async finish(body: ProofReportBody): Promise<ProofReport> {
    await this.sweep();
    const run = this.usable(body.run_token);
    run.used = true;
    let signedIn = false;
    let accountNote = 'no temporary account was requested';
    if (run.account) {
      const account = run.account;
      run.account = undefined;
      try {
        const { body: user } = await this.backend.request(`/auth/v1/admin/users/${account.id}`, {
          credential: { serviceRole: true },
        });
        signedIn = Boolean(signedInUser.parse(user).last_sign_in_at);
      } catch {
        signedIn = false;
      }
      accountNote = await deleteAccount(this.backend, account.id).then(
        () => `temporary account ${account.email} deleted`,
        (error: Error) => `temporary account ${account.email} could not be deleted: ${error.message}`,
      );
    }
    const { service_worker: worker, indexeddb, login } = body.checks;
    const loginOk = login.ok && signedIn;
    const checks: ProofCheck[] = [
      {
        name: 'service_worker',
        ok: worker.ok && worker.registered && worker.controlled,
        detail: worker.detail,
        facts: { registered: worker.registered, controlled: worker.controlled, scope: worker.scope },
      },
      {
        name: 'indexeddb',
        ok: indexeddb.ok && indexeddb.kept_value,
        detail: indexeddb.detail,
        facts: { kept_value: indexeddb.kept_value, persisted: indexeddb.persisted },
      },
      {
        name: 'login',
        ok: loginOk,
        detail: `${login.detail} The backend ${signedIn ? 'confirms' : 'does not confirm'} the sign-in; ${accountNote}.`,
        facts: { status: login.status, user_matches: login.user_matches, backend_confirms_sign_in: signedIn },
      },
    ];
    const report: ProofReport = {
      run_id: run.id,
      subject: run.subject,
      received_at: new Date(this.options.now()).toISOString(),
      ok: checks.every((item) => item.ok),
      user_agent: body.user_agent,
      checks,
    };
    this.recent.unshift(report);
    this.recent.length = Math.min(this.recent.length, KEPT_REPORTS);
    return report;
  }

  /** The newest reports first. */
  reports(): ProofReport[] {
    return [...this.recent];
  }

  /** Forgets runs long past expiry and deletes the accounts of expired runs. */
  async sweep(): Promise<void> {
    const now = this.options.now();
    for (const [key, run] of this.runs) {
      if (now <= run.expiresAt) continue;
      if (run.account) {
        const account = run.account;
        run.account = undefined;
        await deleteAccount(this.backend, account.id).catch(() => {});
      }
      // Kept a while after expiry so a late report hears "expired" rather than "unknown".
      if (now > run.expiresAt + this.options.ttlMs) this.runs.delete(key);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const run of this.runs.values()) {
      if (!run.account) continue;
      const account = run.account;
      run.account = undefined;
      await deleteAccount(this.backend, account.id).catch(() => {});
    }
  }
}

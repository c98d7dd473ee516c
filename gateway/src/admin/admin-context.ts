// What every admin route family shares, built once per gateway: the gate, a backend client with
// the console's longer deadlines, the allowed e-mails, where apply-sql goes, the audit log, and
// the two stores that hold state between requests (browser-proof runs, cleanup previews).
import { BackendClient, type BackendTarget } from '../backend/backend-client.ts';
import type { GatewayConfig } from '../config.ts';
import type { AdminGate } from './admin-cookie.ts';
import { managementTarget, type ManagementTarget } from './admin-settings.ts';
import { AuditLog } from './audit-log.ts';
import { BrowserProofRuns } from './browser-proof/proof-runs.ts';
import { CleanupPreviews } from './storage/cleanup-previews.ts';

/** Admin work reads whole catalogs and many objects: more time than a student's request gets. */
export const ADMIN_BACKEND_DEADLINES = { callDeadlineMs: 30_000, routeBudgetMs: 120_000 };

export interface AdminTuning {
  /** The clock of run tokens and previews (tests move it). */
  now: () => number;
  runTokenTtlMs: number;
  previewTtlMs: number;
}

export const DEFAULT_ADMIN_TUNING: AdminTuning = {
  now: () => Date.now(),
  runTokenTtlMs: 10 * 60 * 1000,
  previewTtlMs: 30 * 60 * 1000,
};

export interface AdminContext {
  gate: AdminGate;
  backend: BackendClient;
  /** ADMIN_EMAIL and ADMIN_EMAILS, lower case. */
  allowedEmails: readonly string[];
  /** The gateway runs the embedded localbase (no BACKEND_URL). */
  embeddedBackend: boolean;
  /** Whether ADMIN_SECRET is set (the secret login exists only then). */
  secret: string | undefined;
  management: ManagementTarget;
  audit: AuditLog;
  proofs: BrowserProofRuns;
  previews: CleanupPreviews;
  repoDir: string;
  tuning: AdminTuning;
}

export function createAdminContext(options: {
  config: GatewayConfig;
  backend: BackendTarget;
  gate: AdminGate;
  repoDir: string;
  tuning?: Partial<AdminTuning>;
  /** The embedded localbase's management token (main.ts passes it; unset with a hosted backend). */
  localbaseToken?: string | undefined;
}): AdminContext {
  const tuning = { ...DEFAULT_ADMIN_TUNING, ...options.tuning };
  const backend = new BackendClient(options.backend, ADMIN_BACKEND_DEADLINES);
  return {
    gate: options.gate,
    backend,
    allowedEmails: options.config.admin.emails,
    embeddedBackend: options.config.backend === undefined,
    secret: options.config.admin.secret,
    management: managementTarget(options.config, options.backend, options.localbaseToken),
    audit: new AuditLog(options.config.logDir),
    proofs: new BrowserProofRuns(backend, { ttlMs: tuning.runTokenTtlMs, now: tuning.now }),
    previews: new CleanupPreviews({ ttlMs: tuning.previewTtlMs, now: tuning.now }),
    repoDir: options.repoDir,
    tuning,
  };
}

// LOG_DIR/admin-audit.log: one JSON line per state-changing admin action (who, what, when and
// the outcome), so an owner can see what the console did. Never a token or a secret: callers
// pass only the fields listed in their action's entry.
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';

export const AUDIT_LOG_FILE = 'admin-audit.log';

export interface AuditEntry {
  subject: string;
  action: string;
  [detail: string]: unknown;
}

export class AuditLog {
  private pending: Promise<void> = Promise.resolve();

  constructor(private readonly logDir: string) {}

  get file(): string {
    return path.join(this.logDir, AUDIT_LOG_FILE);
  }

  /** Appends in order; a failure to write is reported to the caller's logger, never thrown. */
  record(entry: AuditEntry, onError: (error: Error) => void = () => {}): Promise<void> {
    const line = `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`;
    this.pending = this.pending
      .then(async () => {
        await mkdir(this.logDir, { recursive: true });
        await appendFile(this.file, line, { mode: 0o600 });
      })
      .catch((error: Error) => onError(error));
    return this.pending;
  }
}

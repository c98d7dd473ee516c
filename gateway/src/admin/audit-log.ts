// LOG_DIR/admin-audit.log: a mirror of the console's actions for the server's owner, one JSON line
// each (when, the session's subject, the action as the database's audit log names it, on whom, and
// its detail). The database's log (console-audit.ts) is the record the Audit log page shows; this
// file is kept beside it because it is the server owner's own: it survives a database reset or
// restore, it is readable while the database or the console is down, and it records actions on a
// project that has no audit log yet (before community-patch-v6.sql is applied, the apply itself
// included). Never a token or a secret: callers pass only the fields listed in their action's entry.
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

// The last verify report, kept so that viewing the Verify page shows it rather than running every
// check again (the suite reads the whole catalog, rebuilds the bundles to compare them, and makes
// and deletes an account: most of a second on a quiet machine, several on a busy one). The first
// view with no report yet runs it once; "Run again" runs it anew. One run at a time: a view or a
// "Run again" while a run is under way waits for that run.
import type { VerifyReport } from './run-verify.ts';

export class VerifyRuns {
  private last: VerifyReport | undefined;
  private running: Promise<VerifyReport> | undefined;

  constructor(private readonly run: () => Promise<VerifyReport>) {}

  /** The last report, or a first run's. */
  latest(): Promise<VerifyReport> {
    return this.last ? Promise.resolve(this.last) : this.again();
  }

  /** A new run (or the one under way). */
  again(): Promise<VerifyReport> {
    this.running ??= this.run()
      .then((report) => {
        this.last = report;
        return report;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}

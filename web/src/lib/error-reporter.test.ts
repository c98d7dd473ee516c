// @vitest-environment happy-dom
// Browser errors reach /__errors batched, and one distinct error at most once a minute.
import { describe, expect, it } from 'vitest';
import { ErrorReporter, type ErrorReport } from './error-reporter.ts';

function reporterAt() {
  let now = 1_000_000;
  const sent: ErrorReport[][] = [];
  const scheduled: (() => void)[] = [];
  const reporter = new ErrorReporter((reports) => sent.push(reports), {
    now: () => now,
    schedule: (callback) => scheduled.push(callback),
  });
  return { reporter, sent, scheduled, advance: (ms: number) => (now += ms) };
}

describe('the error reporter', () => {
  it('sends errors of one moment in one batch, counting repeats', () => {
    const { reporter, sent, scheduled } = reporterAt();
    const boom = new TypeError('cannot read x');
    reporter.report('error', boom);
    reporter.report('error', boom);
    reporter.report('unhandledrejection', new Error('fetch failed'));
    expect(scheduled).toHaveLength(1);
    scheduled[0]!();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.map((report) => [report.kind, report.message, report.count])).toEqual([
      ['error', 'TypeError: cannot read x', 2],
      ['unhandledrejection', 'Error: fetch failed', 1],
    ]);
  });

  it('reports the same error again only after a minute', () => {
    const { reporter, sent, scheduled, advance } = reporterAt();
    const boom = new Error('loop');
    reporter.report('error', boom);
    scheduled.shift()!();
    advance(30_000);
    reporter.report('error', boom);
    expect(scheduled).toHaveLength(0);
    advance(31_000);
    reporter.report('error', boom);
    scheduled.shift()!();
    expect(sent).toHaveLength(2);
  });
});

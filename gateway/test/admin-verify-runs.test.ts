// Verify's last run: views share it, the first view runs it once, "Run again" makes a new one, and
// runs never overlap (a view or a second "Run again" during a run waits for that run).
import { describe, expect, it } from 'vitest';
import type { VerifyReport } from '../src/admin/verify/run-verify.ts';
import { VerifyRuns } from '../src/admin/verify/verify-runs.ts';

function counter() {
  let runs = 0;
  let release: (() => void) | undefined;
  const run = () =>
    new Promise<VerifyReport>((resolve) => {
      runs += 1;
      const report = { generated_at: `run ${runs}` } as VerifyReport;
      release = () => resolve(report);
    });
  return { run, runs: () => runs, finish: () => release?.() };
}

describe('VerifyRuns', () => {
  it('runs once for the first views, then shows that run until run again', async () => {
    const work = counter();
    const store = new VerifyRuns(work.run);
    const views = [store.latest(), store.latest()];
    work.finish();
    expect((await Promise.all(views)).map((report) => report.generated_at)).toEqual(['run 1', 'run 1']);
    expect((await store.latest()).generated_at).toBe('run 1');
    expect(work.runs()).toBe(1);

    const again = store.again();
    const meanwhile = [store.again(), store.latest()];
    work.finish();
    expect((await again).generated_at).toBe('run 2');
    expect((await Promise.all(meanwhile)).map((report) => report.generated_at)).toEqual(['run 2', 'run 1']);
    expect(work.runs()).toBe(2);
    expect((await store.latest()).generated_at).toBe('run 2');
  });

  it('keeps the last good report when a run fails, and lets the next one start', async () => {
    let fail = false;
    const store = new VerifyRuns(async () => {
      if (fail) throw new Error('backend down');
      return { generated_at: 'ok' } as VerifyReport;
    });
    expect((await store.latest()).generated_at).toBe('ok');
    fail = true;
    await expect(store.again()).rejects.toThrow('backend down');
    expect((await store.latest()).generated_at).toBe('ok');
    fail = false;
    expect((await store.again()).generated_at).toBe('ok');
  });
});

// The budget check on a fresh production build (in a temp folder, so web/dist is left alone): a
// cold load of /focus needs at most 60 KB of gzip JavaScript, and the heavy parts stay lazy.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runViteBuild, VITE_BUILDS } from '#tools/build/vite-build.mjs';
import { repoRoot } from '#db/paths.ts';
import { FOCUS_BUDGET_BYTES, formatReport, measureFocusBudget, type BudgetReport } from './budget.ts';

let outDir: string;
let report: BudgetReport;

beforeAll(async () => {
  outDir = await mkdtemp(path.join(os.tmpdir(), 'studyhall-budget-'));
  await runViteBuild(VITE_BUILDS.web, repoRoot, outDir);
  report = await measureFocusBudget(outDir);
  console.log(formatReport(report));
}, 180_000);

afterAll(() => rm(outDir, { recursive: true, force: true }));

describe('the /focus cold-load budget', () => {
  it('needs at most 60 KB of gzip JavaScript', () => {
    expect(report.criticalJsGzip).toBeGreaterThan(0);
    expect(report.criticalJsGzip).toBeLessThanOrEqual(FOCUS_BUDGET_BYTES);
  });

  it('keeps supabase-js, uPlot, zod and the other screens out of it', () => {
    const needed = report.critical.map((item) => item.file).join(' ');
    expect(needed).not.toMatch(/supabase|uPlot|restore|StatsPage|BackupsPage|ProfilePage|SettingsPage|WelcomePage/);
    const lazy = report.lazy.map((item) => item.file).join(' ');
    expect(lazy).toMatch(/supabase/);
    expect(lazy).toMatch(/uPlot/);
  });
});

// The budget check on the production build the server serves (web/dist), built first when it is
// missing or older than its sources, as `npm start` does: a cold load of /focus needs at most 60 KB
// of gzip JavaScript, and the heavy parts stay lazy. (The browser suites serve the same build, so
// CI builds the web app once.)
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureViteBuild, VITE_BUILDS } from '#tools/build/vite-build.mjs';
import { repoRoot } from '#db/paths.ts';
import { FOCUS_BUDGET_BYTES, formatReport, measureFocusBudget, type BudgetReport } from './budget.ts';

let report: BudgetReport;

beforeAll(async () => {
  await ensureViteBuild(VITE_BUILDS.web);
  report = await measureFocusBudget(path.join(repoRoot, VITE_BUILDS.web.outDir));
  console.log(formatReport(report));
}, 180_000);

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

// The size budget of a cold load of /focus: the JavaScript the entry needs (index.html's module and
// everything it imports statically) plus the focus screen's chunk and its static imports, gzip-
// compressed. Everything else (other screens, supabase-js, uPlot, zod) must stay lazy. Sizes are
// deterministic for a given build. Usage: `npm run budget` (checks web/dist), or from a test.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';

export const FOCUS_BUDGET_BYTES = 60 * 1024;
export const ENTRY = 'index.html';
export const FOCUS_SCREEN = 'src/routes/focus/FocusPage.tsx';

const chunk = z
  .object({
    file: z.string(),
    src: z.string().optional(),
    imports: z.array(z.string()).optional(),
    dynamicImports: z.array(z.string()).optional(),
    css: z.array(z.string()).optional(),
  })
  .loose();
const manifestSchema = z.record(z.string(), chunk);

export interface BudgetReport {
  critical: { file: string; gzip: number }[];
  criticalJsGzip: number;
  criticalCssGzip: number;
  lazy: { file: string; gzip: number }[];
  budget: number;
  withinBudget: boolean;
}

export async function measureFocusBudget(distDir: string, budget = FOCUS_BUDGET_BYTES): Promise<BudgetReport> {
  const manifest = manifestSchema.parse(
    JSON.parse(await readFile(path.join(distDir, '.vite', 'manifest.json'), 'utf8')),
  );
  const gzipOf = async (file: string) => gzipSync(await readFile(path.join(distDir, file))).length;

  const criticalKeys = new Set<string>();
  const visit = (key: string) => {
    if (criticalKeys.has(key)) return;
    const entry = manifest[key];
    if (!entry) throw new Error(`the build manifest has no ${key}`);
    criticalKeys.add(key);
    for (const imported of entry.imports ?? []) visit(imported);
  };
  visit(ENTRY);
  // The focus screen ships with the entry; were it lazy again, its chunk would count here too.
  if (manifest[FOCUS_SCREEN]) visit(FOCUS_SCREEN);

  const criticalJs = [...criticalKeys].map((key) => manifest[key]!.file);
  const criticalCss = [...new Set([...criticalKeys].flatMap((key) => manifest[key]!.css ?? []))];
  const critical = await Promise.all(criticalJs.map(async (file) => ({ file, gzip: await gzipOf(file) })));
  const css = await Promise.all(criticalCss.map(gzipOf));
  const lazyFiles = [...new Set(Object.values(manifest).map((entry) => entry.file))].filter(
    (file) => file.endsWith('.js') && !criticalJs.includes(file),
  );
  const lazy = await Promise.all(lazyFiles.map(async (file) => ({ file, gzip: await gzipOf(file) })));
  const criticalJsGzip = critical.reduce((sum, item) => sum + item.gzip, 0);
  return {
    critical: critical.sort((a, b) => b.gzip - a.gzip),
    criticalJsGzip,
    criticalCssGzip: css.reduce((sum, size) => sum + size, 0),
    lazy: lazy.sort((a, b) => b.gzip - a.gzip),
    budget,
    withinBudget: criticalJsGzip <= budget,
  };
}

export function formatReport(report: BudgetReport): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return [
    `cold load of /focus: ${kb(report.criticalJsGzip)} JS gzip (budget ${kb(report.budget)}), ${kb(report.criticalCssGzip)} CSS gzip`,
    ...report.critical.map((item) => `  needed  ${kb(item.gzip).padStart(9)}  ${item.file}`),
    ...report.lazy.map((item) => `  lazy    ${kb(item.gzip).padStart(9)}  ${item.file}`),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const distDir = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
  const report = await measureFocusBudget(distDir);
  console.log(formatReport(report));
  if (!report.withinBudget) {
    console.error('budget: the JavaScript a cold load of /focus needs is over budget');
    process.exit(1);
  }
}

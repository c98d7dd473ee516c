// Judges the TAP that a pgTAP file printed: every test ok, the plan honoured, finish() reached.

export interface TapResult {
  ok: boolean;
  number: number;
  description: string;
  /** `# TODO` and `# SKIP` results never fail a file. */
  directive: 'todo' | 'skip' | null;
  /** Diagnostic lines (`# ...`) printed right after this result. */
  diagnostics: string[];
}

export interface TapReport {
  plan: number | null;
  results: TapResult[];
  /** Diagnostics printed before the first result or by finish(). */
  comments: string[];
}

const RESULT = /^(not ok|ok)\s+(\d+)\s*(?:-\s*)?(.*)$/;
const PLAN = /^1\.\.(\d+)/;
const DIRECTIVE = /#\s*(TODO|SKIP)\b/i;

export function parseTap(lines: string[]): TapReport {
  const report: TapReport = { plan: null, results: [], comments: [] };
  for (const line of lines.flatMap((text) => text.split('\n'))) {
    const plan = PLAN.exec(line);
    if (plan) {
      report.plan = Number(plan[1]);
      continue;
    }
    const result = RESULT.exec(line);
    if (result) {
      const description = result[3] ?? '';
      const directive = DIRECTIVE.exec(description)?.[1]?.toLowerCase() as 'todo' | 'skip' | undefined;
      report.results.push({
        ok: result[1] === 'ok',
        number: Number(result[2]),
        description,
        directive: directive ?? null,
        diagnostics: [],
      });
      continue;
    }
    if (line.trim() === '') continue;
    const last = report.results.at(-1);
    if (last && line.startsWith('#')) last.diagnostics.push(line);
    else report.comments.push(line);
  }
  return report;
}

export interface TapVerdict {
  passed: boolean;
  /** One sentence per reason the file failed, with the failing lines. */
  problems: string[];
}

export function judgeTap(report: TapReport, options: { finished: boolean; error?: string | undefined }): TapVerdict {
  const problems: string[] = [];
  if (options.error) problems.push(options.error);
  for (const result of report.results) {
    if (!result.ok && result.directive !== 'todo') {
      problems.push([`not ok ${result.number} - ${result.description}`, ...result.diagnostics].join('\n'));
    }
  }
  if (report.plan === null) {
    problems.push('no plan: the file never called plan(N)');
  } else if (report.plan !== report.results.length) {
    problems.push(`plan mismatch: planned ${report.plan} tests but ran ${report.results.length}`);
  }
  if (!options.finished && !options.error) {
    problems.push('finish() was never called: the file must end with `select * from finish();`');
  }
  return { passed: problems.length === 0, problems };
}

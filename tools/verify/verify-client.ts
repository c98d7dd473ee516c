// The admin console's verify suite from outside: sign in with ADMIN_SECRET, run it anew
// (POST /__admin/verify, answered as JSON and parsed with the console's contract,
// contracts/admin-api.ts), and render the report as lines (or pass the JSON through).
import { verifyReport, type VerifyReport } from '#contracts/admin-api.ts';

export class VerifyClientError extends Error {}

const TIMEOUT_MS = 5 * 60 * 1000;

async function describeFailure(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: string; message?: string };
    return `${response.status} ${body.error ?? ''}: ${body.message ?? text}`;
  } catch {
    return `${response.status}: ${text.slice(0, 200)}`;
  }
}

/** Signs in and returns the Cookie header value for the admin session. */
export async function signIn(baseUrl: string, secret: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/__admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ secret }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new VerifyClientError(
      `cannot reach ${baseUrl}: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`,
    );
  }
  if (!response.ok) throw new VerifyClientError(`sign-in refused: ${await describeFailure(response)}`);
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('app_admin='));
  if (!cookie) throw new VerifyClientError('sign-in answered without the app_admin cookie');
  return cookie.split(';')[0] ?? '';
}

export async function fetchReport(baseUrl: string, cookie: string): Promise<VerifyReport> {
  const response = await fetch(`${baseUrl}/__admin/verify`, {
    method: 'POST',
    headers: { accept: 'application/json', cookie },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!response.ok) throw new VerifyClientError(`verify failed: ${await describeFailure(response)}`);
  return verifyReport.parse(await response.json());
}

/** The report as a person reads it: one line per category, every failing check with its fix. */
export function renderReport(report: VerifyReport, baseUrl: string): string {
  const lines: string[] = [];
  for (const category of report.categories) {
    const failed = category.checks.filter((item) => !item.ok);
    lines.push(
      `${category.ok ? '✓' : '✗'} ${category.name}: ${category.ok ? `${category.checks.length} checks pass` : `${failed.length} of ${category.checks.length} failed`}`,
    );
    for (const item of failed) {
      lines.push(`    ✗ ${item.name}: ${item.detail}`);
      if (item.fix) lines.push(`      fix: ${item.fix.text}${item.fix.href ? ` ${baseUrl}${item.fix.href}` : ''}`);
    }
  }
  const proof = report.browser_proof.last_report;
  lines.push(
    `  browser proof: ${proof ? `last report ${proof.received_at}, ${proof.ok ? 'passed' : 'failed'}` : 'not run since the server started'} (not counted)`,
  );
  lines.push(
    report.ok
      ? `verify: all ${report.counts.checks} checks pass (${report.duration_ms} ms)`
      : `verify: ${report.counts.failed} of ${report.counts.checks} checks failed`,
  );
  return `${lines.join('\n')}\n`;
}

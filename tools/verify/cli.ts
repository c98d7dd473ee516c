// `npm run verify -- --base-url URL [--json]`: runs the admin console's verify suite of a running
// studyhall server, signing in with ADMIN_SECRET from the environment. Prints the checks (or the
// report as JSON) and exits 0 when every check passes, 1 when any fails or verify cannot run.
import { parseArgs } from 'node:util';
import { fetchReport, renderReport, signIn, VerifyClientError } from './verify-client.ts';

const USAGE = 'usage: ADMIN_SECRET=... npm run verify -- --base-url http://127.0.0.1:3000 [--json]';

async function main(): Promise<number> {
  let values: { 'base-url'?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { 'base-url': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    console.error(`verify: ${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const baseUrl = values['base-url']?.replace(/\/+$/, '');
  if (!baseUrl || !/^https?:\/\/[^/]+$/.test(baseUrl)) {
    console.error(`verify: --base-url must be the server's origin, such as http://127.0.0.1:3000\n${USAGE}`);
    return 1;
  }
  const secret = process.env.ADMIN_SECRET?.trim();
  if (!secret) {
    console.error(`verify: set ADMIN_SECRET to the server's admin secret\n${USAGE}`);
    return 1;
  }
  try {
    const report = await fetchReport(baseUrl, await signIn(baseUrl, secret));
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report, baseUrl));
    return report.ok ? 0 : 1;
  } catch (error) {
    console.error(`verify: ${error instanceof VerifyClientError ? error.message : (error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();

// `npm run test:e2e`: the browser tests (*.e2e.test.ts) under Playwright Test (playwright.config.ts)
// in Debian's Chromium; more arguments go to `playwright test` (a file, --project=phone, -g NAME).
// Ends by naming the HTML report, which holds the trace of every test that failed and ran again.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';
import { assertChromium } from './browser.ts';
import { REPORT_DIR } from '../../playwright.config.ts';

try {
  assertChromium();
} catch (error) {
  console.error(`test:e2e: ${(error as Error).message}`);
  process.exit(1);
}

const child = spawn(
  process.execPath,
  [path.join(repoRoot, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', ...process.argv.slice(2)],
  { cwd: repoRoot, stdio: 'inherit' },
);
child.on('exit', (code, signal) => {
  const report = path.join(repoRoot, REPORT_DIR, 'index.html');
  console.log(`test:e2e: HTML report at ${report} (npx playwright show-report ${REPORT_DIR})`);
  process.exit(code ?? (signal ? 1 : 0));
});

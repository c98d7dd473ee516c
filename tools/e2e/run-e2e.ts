// `npm run test:e2e`: the browser tests (*.e2e.test.ts) in Debian's Chromium.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';
import { assertChromium } from './browser.ts';

try {
  assertChromium();
} catch (error) {
  console.error(`test:e2e: ${(error as Error).message}`);
  process.exit(1);
}

const child = spawn(
  process.execPath,
  [path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.e2e.config.ts'],
  { cwd: repoRoot, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

// `npm run test:e2e`: real-browser tests against the real stack.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.e2e.test.ts'],
    exclude: ['**/node_modules/**', 'web/dist/**', '.data/**', '.tmp/**'],
    pool: 'forks',
    // Two files at a time, each with its own server (own port, own data directory) and browser. On
    // the 2-core machine the stage took 399 s this way against 450 to 490 s one at a time, and the
    // waits the tests hold people to (a push within 5 s, a removal seen within a second) held.
    maxWorkers: 2,
    passWithNoTests: true,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

// `npm test`: unit and integration tests, and the pgTAP suite, on embedded PGlite.
// Files named *.pg.test.ts need a real PostgreSQL 15 and run only under `npm run test:pg`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['**/node_modules/**', '**/*.pg.test.ts', 'web/dist/**', '.data/**', '.tmp/**', '**/*.e2e.test.ts'],
    pool: 'forks',
    // The PGlite test database snapshot, built once before the workers start (see the file).
    globalSetup: ['tools/testing/global-setup.ts'],
    // Each test process holds its own PGlite (300-700 MB); two at a time fits a 2-core machine.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});

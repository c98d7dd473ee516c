// `npm run test:pg` (vitest part): tests that need PostgreSQL 15 and the parity suites, which
// openParityDatabase() points at a fresh PG15 cluster because STUDYHALL_TEST_PG=1.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.pg.test.ts', '**/*.parity.test.ts'],
    exclude: ['**/node_modules/**', 'web/dist/**', '.data/**', '.tmp/**'],
    pool: 'forks',
    maxWorkers: 2,
    passWithNoTests: true,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

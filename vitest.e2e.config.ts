// `npm run test:e2e`: real-browser tests against the real stack.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.e2e.test.ts'],
    exclude: ['**/node_modules/**', 'web/dist/**', '.data/**', '.tmp/**'],
    pool: 'forks',
    maxWorkers: 1,
    passWithNoTests: true,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

// `npm run test:pg` (vitest part): tests that need a PostgreSQL server of their own (a restart under
// load, races across sessions on a cluster of their own) or pg_prove, each starting one from the
// embedded binaries (tools/pg/cluster.ts).
import { defineConfig } from 'vitest/config';
import { useMemoryScratch } from './tools/testing/memory-scratch.ts';

useMemoryScratch();

export default defineConfig({
  test: {
    include: ['**/*.pg.test.ts'],
    exclude: ['**/node_modules/**', 'web/dist/**', '.data/**', '.tmp/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

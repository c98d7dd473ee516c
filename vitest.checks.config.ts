// `npm run test:checks` (a stage of .ci/run): checks of the repository's form rather than of the
// product's behaviour, kept out of `npm test`: the import rules, the paths the docs name, the
// committed SQL bundles against their builder, the /focus budget on a fresh production build, and
// `cap sync` offline. They still fail CI.
import { defineConfig } from 'vitest/config';
import { useMemoryScratch } from './tools/testing/memory-scratch.ts';

useMemoryScratch();

export const CHECKS = [
  'tools/architecture/boundaries.test.ts',
  'tools/docs/docs-references.test.ts',
  'db/bundles/*.test.ts',
  'web/scripts/budget.test.ts',
  'companion/cap-sync.test.ts',
];

export default defineConfig({
  test: {
    include: CHECKS,
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});

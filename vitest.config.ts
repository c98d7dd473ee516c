// `npm test`: the product's behaviour, in three projects.
// - postgres: unit and integration tests and the pgTAP suite, on one PostgreSQL 15 server for the
//   whole run (tools/testing/postgres-global-setup.ts); a file that needs a database gets its own,
//   copied from a migrated template.
// - mocks: the unit tests that replace modules with vi.mock, each with a module cache of its own.
// - pglite: the fallback engine's own suite: the pgTAP suite and the database runtime's tests
//   (db/), and the tests of what only PGlite does (its statement watchdog, the move from it).
// Not here: *.pg.test.ts (`npm run test:pg`: pg_prove and servers of their own), the checks of the
// repository's form (vitest.checks.config.ts) and the browser tests (`npm run test:e2e`).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { CHECKS } from './vitest.checks.config.ts';
import ProjectsTogetherSequencer from './tools/testing/projects-together-sequencer.ts';
import { useMemoryScratch } from './tools/testing/memory-scratch.ts';

// Every temp folder of the run (clusters, databases, data directories) in memory: a file created on
// this machine's disk costs more the more the run has deleted (tools/testing/memory-scratch.ts).
useMemoryScratch();

const PGLITE_SUITE = [
  'db/*.test.ts',
  'pgtap/pgtap.test.ts',
  'localbase/test/move-to-postgres.test.ts',
  'tools/security/attacks/statement-freeze.parity.test.ts',
];
// In the pglite project only: these test the database runtime or the move from PGlite.
const PGLITE_ONLY = ['db/*.test.ts', 'localbase/test/move-to-postgres.test.ts'];

/** Folders that hold no test of ours. */
const NOT_SOURCES = new Set(['node_modules', '.git', '.tmp', '.data', '.build', 'dist', 'android']);

/**
 * Test files that replace modules with vi.mock. A mock reaches only the modules evaluated after it:
 * with the workers' shared module cache (isolate: false, below) the module under test may already
 * have been evaluated by an earlier file with its real dependencies, and a file's mocked modules
 * would stay for the next. So these run in a project of their own with a module cache per file.
 * Found by reading the test files, so a new one joins them by itself.
 */
const MOCKING = testFilesUnder('.').filter((file) => readFileSync(file, 'utf8').includes('vi.mock('));

function testFilesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) return NOT_SOURCES.has(entry.name) ? [] : testFilesUnder(file);
    return /\.test\.tsx?$/.test(entry.name) ? [path.posix.normalize(file)] : [];
  });
}

const EXCLUDED = [
  '**/node_modules/**',
  '**/*.pg.test.ts',
  '**/*.e2e.test.ts',
  'web/dist/**',
  '.data/**',
  '.tmp/**',
  ...CHECKS,
];

export default defineConfig({
  test: {
    pool: 'forks',
    // A worker no longer holds a database in memory (the run's one server does), so a worker is a Node
    // process of a few hundred MB; a third one overlaps one file's waits on the server with another's work.
    maxWorkers: 3,
    // Test files share a worker's module cache: Fastify, zod, pg and React load once per worker rather
    // than once per file (the run's import time fell from 194 s to 64 s, its wall time from 388 s to
    // 280 s). A file must therefore leave no global behind: fake timers, stubbed globals and env
    // changes are restored in its own afterEach/afterAll (the whole suite passes that way). A fourth worker
    // measured no faster on 2 cores (277 s): the tests then wait on the CPU instead.
    isolate: false,
    // Both projects' files in one order, longest first (tools/testing/projects-together-sequencer.ts).
    sequence: { sequencer: ProjectsTogetherSequencer },
    // Workers move a function to V8's optimising compiler later than its default (an interrupt
    // budget 8 times its 66 KB): a test file runs most code only a few times, and compiling it
    // optimised was about a tenth of the run's CPU (perf). Loops that stay hot still get there.
    // 206 and 206 s against 216 and 224 s without, in alternate runs (CPU 344 and 338 s against 357
    // and 379 s).
    execArgv: ['--interrupt-budget=540672'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['**/*.test.ts', '**/*.test.tsx'],
          exclude: [...EXCLUDED, ...PGLITE_ONLY, ...MOCKING],
          globalSetup: ['tools/testing/postgres-global-setup.ts'],
          setupFiles: ['tools/testing/drop-file-databases.ts'],
          env: { STUDYHALL_TEST_ENGINE: 'postgres' },
        },
      },
      {
        extends: true,
        test: {
          // Unit tests of the web app, the companion and localbase: none needs a database.
          name: 'mocks',
          include: MOCKING,
          exclude: EXCLUDED,
          isolate: true,
        },
      },
      {
        extends: true,
        test: {
          name: 'pglite',
          include: PGLITE_SUITE,
          exclude: EXCLUDED,
          globalSetup: ['tools/testing/pglite-global-setup.ts'],
          env: { STUDYHALL_TEST_ENGINE: 'pglite' },
        },
      },
    ],
  },
});

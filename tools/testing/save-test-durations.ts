// Saves the last `npm test` run's time per file (vitest's own record, under node_modules/.vite) as
// tools/testing/test-durations.json, which the run's order falls back on where vitest has no record:
// a clean clone, CI. Run after a whole `npm test` on a quiet machine, when files were added or their
// times changed much (vitest keeps the times of files since moved to another project too: remove
// node_modules/.vite/vitest before that run to save only the current ones):
//   node --import tsx tools/testing/save-test-durations.ts
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { repoRoot } from '#db/paths.ts';
import { COMMITTED_DURATIONS_FILE } from './projects-together-sequencer.ts';

const CACHE = path.join(repoRoot, 'node_modules', '.vite', 'vitest');

const resultsSchema = z.object({
  results: z.array(z.tuple([z.string(), z.object({ duration: z.number() })])),
});

/** vitest keeps one record per configuration; the newest is the last run's. */
async function newestResults(): Promise<string> {
  const folders = await readdir(CACHE).catch(() => []);
  const files = await Promise.all(
    folders.map(async (folder) => {
      const file = path.join(CACHE, folder, 'results.json');
      return { file, modified: (await stat(file).catch(() => undefined))?.mtimeMs ?? -1 };
    }),
  );
  const newest = files.filter((file) => file.modified >= 0).sort((a, b) => b.modified - a.modified)[0];
  if (!newest) throw new Error(`no record of a run under ${CACHE}: run npm test first`);
  return newest.file;
}

const source = await newestResults();
const { results } = resultsSchema.parse(JSON.parse(await readFile(source, 'utf8')));
const durations = Object.fromEntries(
  results
    .filter(([key, result]) => result.duration > 0 && existsSync(path.join(repoRoot, key.slice(key.indexOf(':') + 1))))
    .map(([key, result]) => [key, Math.round(result.duration / 100) * 100] as const)
    .sort(([a], [b]) => a.localeCompare(b)),
);
await writeFile(COMMITTED_DURATIONS_FILE, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files' times from ${source} into ${COMMITTED_DURATIONS_FILE}`);

// The order of `npm test`'s files. Within it, vitest's own rules: a file that failed last time
// first, then the longest by the last run's times, larger files first where there is none, with the
// times committed in test-durations.json where vitest has no record of its own (a clean clone, CI:
// there vitest would order every file by its size alone, and a clean clone's run took 233 s against
// 204-217 s in the order of the times).
//
// Around that, files that can share a worker process come together. With `isolate: false` a worker
// keeps its module cache from file to file only while the next file in the queue belongs to the same
// project and test environment; at any other file vitest ends the worker and starts a new one, which
// imports Fastify, pg, Preact and the rest again. In plain longest-first order over every project and
// environment that happened at most files (82 workers in one run, 20 in these blocks; the run's CPU
// 324 s against 270 s, its time 200 s against 184 s). So the files go in blocks, one per project and
// environment, the block holding the longest file first.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** `project:file` to milliseconds, written by save-test-durations.ts. */
export const COMMITTED_DURATIONS_FILE = path.join(import.meta.dirname, 'test-durations.json');

function committedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(COMMITTED_DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** The environment vitest gives a file: its `@vitest-environment` docblock, else its project's. */
function environmentOf(file: TestSpecification): string {
  const docblock = /@vitest-environment\s+([\w-]+)/.exec(readFileSync(file.moduleId, 'utf8'));
  return docblock?.[1] ?? file.project.config.environment;
}

export default class ProjectsTogetherSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const committed = committedDurations();
    const keyOf = (file: TestSpecification) => `${file.project.name}:${path.relative(config.root, file.moduleId)}`;
    const durationOf = (file: TestSpecification) =>
      cache.getFileTestResults(keyOf(file))?.duration ?? committed[keyOf(file)];
    const failed = (file: TestSpecification) => cache.getFileTestResults(keyOf(file))?.failed === true;
    const size = (file: TestSpecification) => cache.getFileStats(keyOf(file))?.size ?? 0;
    const longestFirst = (a: TestSpecification, b: TestSpecification) => {
      const [durationA, durationB] = [durationOf(a), durationOf(b)];
      // Files with no time yet (new ones) first, larger ones first among them.
      if (durationA === undefined || durationB === undefined)
        return durationA !== undefined ? 1 : durationB !== undefined ? -1 : size(b) - size(a);
      return durationB - durationA;
    };

    const blocks = new Map<string, TestSpecification[]>();
    for (const file of [...files].sort(longestFirst)) {
      const key = `${file.project.name}:${environmentOf(file)}`;
      const block = blocks.get(key) ?? blocks.set(key, []).get(key)!;
      block.push(file);
    }
    // Each block is longest first, so its first file is its longest.
    const ordered = [...blocks.values()].sort((a, b) => longestFirst(a[0]!, b[0]!)).flat();
    return [...ordered.filter(failed), ...ordered.filter((file) => !failed(file))];
  }
}

// The order of `npm test`'s files: vitest's own (a file that failed last time first, then the
// longest by the last run's times, and larger files first where it has none), but over every
// project at once, and with the times committed in test-durations.json where vitest has no record
// of its own (a clean clone, CI: there vitest would order every file by its size alone, and a clean
// clone's run took 233 s against 204-217 s in the order of the times). vitest's sequencer sorts by
// project first, so the pglite project's files all started before any of the postgres project's:
// its longest file (the engine's own tests) then ran with the other workers idle.
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

export default class ProjectsTogetherSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const committed = committedDurations();
    const keyOf = (file: TestSpecification) => `${file.project.name}:${path.relative(config.root, file.moduleId)}`;
    const durationOf = (file: TestSpecification) =>
      cache.getFileTestResults(keyOf(file))?.duration ?? committed[keyOf(file)];
    const failed = (file: TestSpecification) => cache.getFileTestResults(keyOf(file))?.failed === true;
    const size = (file: TestSpecification) => cache.getFileStats(keyOf(file))?.size ?? 0;
    return [...files].sort((a, b) => {
      if (failed(a) !== failed(b)) return failed(a) ? -1 : 1;
      const [durationA, durationB] = [durationOf(a), durationOf(b)];
      // Files with no time yet (new ones) first, larger ones first among them.
      if (durationA === undefined || durationB === undefined)
        return durationA !== undefined ? 1 : durationB !== undefined ? -1 : size(b) - size(a);
      return durationB - durationA;
    });
  }
}

// The order of `npm test`'s files: vitest's own (a file that failed last time first, then the
// longest by the last run's times, and larger files first where it has none), but over both
// projects at once. vitest's sequencer sorts by project first, so the pglite project's files all
// started before any of the postgres project's: its longest file (the engine's own tests) then ran
// with the other workers idle, and the postgres project began with its three longest files, which
// all wait on clocks (realtime windows), leaving the CPU idle again for half a minute.
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class ProjectsTogetherSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const keyOf = (file: TestSpecification) => `${file.project.name}:${path.relative(config.root, file.moduleId)}`;
    const known = (file: TestSpecification) => cache.getFileTestResults(keyOf(file));
    const size = (file: TestSpecification) => cache.getFileStats(keyOf(file))?.size ?? 0;
    return [...files].sort((a, b) => {
      const [resultA, resultB] = [known(a), known(b)];
      // Files with no result yet first, larger ones first among them.
      if (!resultA || !resultB) return resultA ? 1 : resultB ? -1 : size(b) - size(a);
      if (resultA.failed !== resultB.failed) return resultA.failed ? -1 : 1;
      return resultB.duration - resultA.duration;
    });
  }
}

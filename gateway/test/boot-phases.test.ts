// The phases of a start: printed after the status block only when STUDYHALL_BOOT_PHASES=1, in the
// order they were marked, and dropped either way once reported.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootPhaseLines, reportBootPhases } from '../src/logging/boot-phases.ts';

// Test files share their worker (vitest.config.ts): a server another file started there has left
// marks of its own start.
beforeEach(() => {
  performance.clearMarks();
});
afterEach(() => {
  performance.clearMarks();
});

describe('boot phases', () => {
  it('prints each studyhall mark in ms since the process started, and nothing else', () => {
    performance.mark('studyhall:db:postgres-ready');
    performance.mark('someone-else');
    performance.mark('studyhall:gateway:ready');
    const lines: string[] = [];
    reportBootPhases((line) => lines.push(line), { STUDYHALL_BOOT_PHASES: '1' });
    expect(lines).toEqual([
      expect.stringMatching(/^studyhall: boot phase +\d+ ms db:postgres-ready$/),
      expect.stringMatching(/^studyhall: boot phase +\d+ ms gateway:ready$/),
    ]);
    const [first, second] = lines.map((line) => Number(/(\d+) ms/.exec(line)?.[1]));
    expect(second).toBeGreaterThanOrEqual(first!);
    expect(first).toBeLessThanOrEqual(performance.now());
    // Reported once: the marks are gone, another one's stays.
    expect(bootPhaseLines()).toEqual([]);
    expect(performance.getEntriesByName('someone-else')).toHaveLength(1);
  });

  it('prints nothing unless asked, and still drops the marks', () => {
    performance.mark('studyhall:gateway:ready');
    const lines: string[] = [];
    reportBootPhases((line) => lines.push(line), {});
    reportBootPhases((line) => lines.push(line), { STUDYHALL_BOOT_PHASES: '0' });
    expect(lines).toEqual([]);
    expect(bootPhaseLines()).toEqual([]);
  });
});

// The phases of a start, for measuring one (tools/bench/README-boot.md). Each step of a start marks
// its end with `performance.mark('studyhall:<part>:<phase>')` (the launcher, the gateway, localbase
// and the database alike: one timeline per process, nothing to pass around, next to nothing to
// record). With STUDYHALL_BOOT_PHASES=1 the server prints them after its status block, in ms since
// the process started, one line each: `studyhall: boot phase   812 ms db:postgres-ready`.
const PREFIX = 'studyhall:';

/** The marks of this start, one line each, in the order they were made. */
export function bootPhaseLines(): string[] {
  return performance
    .getEntriesByType('mark')
    .filter((mark) => mark.name.startsWith(PREFIX))
    .map(
      (mark) => `studyhall: boot phase ${mark.startTime.toFixed(0).padStart(5)} ms ${mark.name.slice(PREFIX.length)}`,
    );
}

/** Prints the phases when asked to (STUDYHALL_BOOT_PHASES=1), then drops the marks: a start is measured once. */
export function reportBootPhases(print: (line: string) => void, env: NodeJS.ProcessEnv = process.env): void {
  if (env.STUDYHALL_BOOT_PHASES === '1') for (const line of bootPhaseLines()) print(line);
  for (const mark of performance.getEntriesByType('mark'))
    if (mark.name.startsWith(PREFIX)) performance.clearMarks(mark.name);
}

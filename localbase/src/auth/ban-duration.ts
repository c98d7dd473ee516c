// GoTrue's ban_duration: a Go duration (time.ParseDuration: "24h", "1h30m", "90s", "1.5h") or
// "none" to lift the ban.
const UNIT_SECONDS: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Seconds of the ban, null for "none", undefined when it is not a duration. */
export function parseBanDuration(text: string): number | null | undefined {
  if (text === 'none') return null;
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let seconds = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < rest.length) {
    const match = PART.exec(rest);
    if (!match) return undefined;
    seconds += Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
  }
  return sign * seconds;
}

// The terminal's view of the JSON log: one readable line per entry,
//   14:03:07 WARN  gateway  backend request failed: connect ECONNREFUSED 127.0.0.1:54321 (GET /__backend/rest/v1/groups)
// and, when LOG_LEVEL lets requests through, one line per finished request instead of Fastify's
// pair of "incoming request" / "request completed" entries:
//   14:03:07 INFO  gateway  GET /api/health 200 3 ms
const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Requests whose completion has not been logged yet, per logger; bounded so a lost pair cannot grow it. */
const MAX_OPEN_REQUESTS = 2_000;

interface LogEntry {
  level?: number;
  time?: number;
  name?: string;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { type?: string; message?: string; code?: string };
}

function clock(time: number | undefined): string {
  const date = new Date(time ?? Date.now());
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

/** Turns serialized pino lines (already redacted) into terminal lines; keeps the request pairing state. */
export class TerminalLines {
  private readonly openRequests = new Map<string, string>();

  /** The readable line for one JSON log line, or undefined when the entry is shown by a later one. */
  format(jsonLine: string): string | undefined {
    let entry: LogEntry;
    try {
      entry = JSON.parse(jsonLine) as LogEntry;
    } catch {
      return jsonLine.trimEnd();
    }
    const requestKey = `${entry.name ?? ''}/${entry.reqId ?? ''}`;
    if (entry.msg === 'incoming request' && entry.req) {
      if (this.openRequests.size >= MAX_OPEN_REQUESTS)
        this.openRequests.delete(this.openRequests.keys().next().value ?? '');
      this.openRequests.set(requestKey, `${entry.req.method ?? '?'} ${entry.req.url ?? '?'}`);
      return undefined;
    }
    let text = entry.msg ?? '';
    if (entry.msg === 'request completed' && entry.res) {
      const request = this.openRequests.get(requestKey) ?? `request ${entry.reqId ?? '?'}`;
      this.openRequests.delete(requestKey);
      const took = entry.responseTime === undefined ? '' : ` ${entry.responseTime.toFixed(0)} ms`;
      text = `${request} ${entry.res.statusCode ?? '?'}${took}`;
    } else {
      if (entry.err?.message) text += `: ${entry.err.message}${entry.err.code ? ` [${entry.err.code}]` : ''}`;
      const request = entry.reqId ? this.openRequests.get(requestKey) : undefined;
      if (request) text += ` (${request})`;
    }
    const level = (LEVEL_NAMES[entry.level ?? 30] ?? 'LOG').padEnd(5);
    return `${clock(entry.time)} ${level} ${(entry.name ?? '').padEnd(9)} ${text.replaceAll('\n', ' ')}`.trimEnd();
  }
}

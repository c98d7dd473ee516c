// Uncaught errors and unhandled rejections go to /__errors, batched (one request per few seconds)
// and at most one report per distinct error per minute, so a failing loop cannot flood the log.

export interface ErrorReport {
  kind: 'error' | 'unhandledrejection';
  message: string;
  stack: string | null;
  source: string | null;
  url: string;
  at: string;
  count: number;
}

export class ErrorReporter {
  private readonly lastSent = new Map<string, number>();
  private readonly batch = new Map<string, ErrorReport>();
  private timer: unknown;

  constructor(
    private readonly send: (reports: ErrorReport[]) => void,
    private readonly options: {
      windowMs?: number;
      batchMs?: number;
      now?: () => number;
      schedule?: (callback: () => void, ms: number) => unknown;
    } = {},
  ) {}

  report(kind: ErrorReport['kind'], error: unknown, source: string | null = null): void {
    const now = (this.options.now ?? Date.now)();
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const stack = error instanceof Error && error.stack ? error.stack.slice(0, 4000) : null;
    const key = `${kind}|${message}|${stack?.split('\n')[1] ?? source ?? ''}`;
    const pending = this.batch.get(key);
    if (pending) {
      pending.count++;
      return;
    }
    const last = this.lastSent.get(key);
    if (last !== undefined && now - last < (this.options.windowMs ?? 60_000)) return;
    this.lastSent.set(key, now);
    this.batch.set(key, {
      kind,
      message: message.slice(0, 1000),
      stack,
      source,
      url: location.pathname,
      at: new Date(now).toISOString(),
      count: 1,
    });
    this.timer ??= (this.options.schedule ?? setTimeout)(() => this.flush(), this.options.batchMs ?? 2000);
  }

  flush(): void {
    this.timer = undefined;
    if (this.batch.size === 0) return;
    const reports = [...this.batch.values()];
    this.batch.clear();
    this.send(reports);
  }
}

export function installErrorReporting(): ErrorReporter {
  const reporter = new ErrorReporter((reports) => {
    const body = JSON.stringify({ reports, user_agent: navigator.userAgent, app: 'web' });
    if (!navigator.sendBeacon?.('/__errors', new Blob([body], { type: 'text/plain' }))) {
      void fetch('/__errors', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        keepalive: true,
      }).catch(() => undefined);
    }
  });
  window.addEventListener('error', (event) =>
    reporter.report('error', event.error ?? event.message, event.filename ? `${event.filename}:${event.lineno}` : null),
  );
  window.addEventListener('unhandledrejection', (event) => reporter.report('unhandledrejection', event.reason));
  window.addEventListener('pagehide', () => reporter.flush());
  return reporter;
}

// Watches whether this server answers (GET /__app/ping), so the app says "Offline" within seconds
// of the server going away and sends what waits as soon as it is back: every FAST_MS while a
// change waits or the server is away, every SLOW_MS otherwise, each check bounded by
// PING_TIMEOUT_MS (the worst case to notice is SLOW_MS + PING_TIMEOUT_MS, under 5 s). A hidden tab
// checks rarely; the browser's online/offline events and the tab coming back check at once.

export const FAST_MS = 2_000;
export const SLOW_MS = 3_000;
export const HIDDEN_MS = 30_000;
export const PING_TIMEOUT_MS = 1_500;

export interface HealthWatchHooks {
  /** One check: true when the server answered. */
  ping: () => Promise<boolean>;
  /** A change waits or is being sent (check often). */
  urgent: () => boolean;
  hidden: () => boolean;
  /** Each check's outcome; `back` when the server answers after it did not. */
  report: (reachable: boolean, back: boolean) => void;
}

export class HealthWatch {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private reachable = true;
  private running = false;
  private checking = false;

  constructor(private readonly hooks: HealthWatchHooks) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  /** Checks now (an online event, the tab shown again, a write that failed). */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    clearTimeout(this.timer);
    let answered = false;
    try {
      answered = await this.hooks.ping();
    } catch {
      answered = false;
    }
    const back = answered && !this.reachable;
    this.reachable = answered;
    this.checking = false;
    this.hooks.report(answered, back);
    if (this.running) this.schedule();
  }

  /** What another request learned (a write that reached the server, or did not). */
  learned(reachable: boolean): void {
    this.reachable = reachable;
    if (this.running && !this.checking) this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const delay = this.hooks.hidden() ? HIDDEN_MS : !this.reachable || this.hooks.urgent() ? FAST_MS : SLOW_MS;
    this.timer = setTimeout(() => void this.check(), delay);
  }
}

/** The browser's check: the gateway's ping route, no cache, bounded in time. */
export async function pingServer(timeoutMs = PING_TIMEOUT_MS): Promise<boolean> {
  try {
    const response = await fetch('/__app/ping', { cache: 'no-store', signal: AbortSignal.timeout(timeoutMs) });
    return response.ok;
  } catch {
    return false;
  }
}

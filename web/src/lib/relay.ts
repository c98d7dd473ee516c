// The timer relay from the page's side: it listens to /__pip/events for the phone's (and the
// Pop-out's) actions and applies each relayed action exactly once by its event id, and it posts
// the timer snapshot to /__pip/state. The server numbers actions from 1 in each process and never
// replays them, so an id at or below the highest one seen, arriving first after a fresh `hello`,
// means the server restarted: its numbering begins again and is accepted.

export type PipActionName = 'correct' | 'incorrect' | 'skip' | 'undo' | 'target';

export interface RelayedAction {
  id: number;
  action: PipActionName;
  target?: number;
  at: number;
}

const ACTIONS = new Set<string>(['correct', 'incorrect', 'skip', 'undo', 'target']);

export function parseRelayedAction(data: string): RelayedAction | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { id, action, target, at } = value as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isInteger(id) || typeof action !== 'string' || !ACTIONS.has(action)) return null;
  if (action === 'target' && (typeof target !== 'number' || !Number.isInteger(target) || target < 1)) return null;
  return { id, action: action as PipActionName, ...(typeof target === 'number' ? { target } : {}), at: typeof at === 'number' ? at : 0 };
}

/** `phone` event data: `{present: boolean, at}`; null when malformed. */
export function parsePhoneEvent(data: string): boolean | null {
  try {
    const value = JSON.parse(data) as { present?: unknown } | null;
    return typeof value?.present === 'boolean' ? value.present : null;
  } catch {
    return null;
  }
}

/** Remembers which action ids were applied; answers whether an arriving one is new. */
export class ActionDeduper {
  private readonly seen = new Set<number>();
  private highest = 0;
  private freshStream = false;

  constructor(private readonly remember = 1000) {}

  /** A new `hello`: the next id tells whether the server kept its numbering. */
  streamOpened(): void {
    this.freshStream = true;
  }

  accept(id: number): boolean {
    // A live stream never repeats an id and a reconnected one never replays: an id at or below
    // the highest seen, first after a new `hello`, comes from a restarted server numbering from 1.
    if (this.freshStream && id <= this.highest) {
      this.seen.clear();
      this.highest = 0;
    }
    this.freshStream = false;
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    this.highest = Math.max(this.highest, id);
    if (this.seen.size > this.remember) {
      for (const old of this.seen) {
        this.seen.delete(old);
        if (this.seen.size <= this.remember) break;
      }
    }
    return true;
  }
}

export interface EventSourceLike {
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  close(): void;
  onerror: ((event: Event) => void) | null;
  readonly readyState: number;
}

export interface RelayListenerOptions {
  /** The stream's address, read at each (re)connection: a paired page names its channel in it. */
  url?: string | (() => string);
  open: (url: string) => EventSourceLike;
  onAction: (action: RelayedAction) => void;
  onConnection?: (connected: boolean) => void;
  /** A `phone` event: whether a phone follows this page's channel. */
  onPhone?: (present: boolean) => void;
  /**
   * The browser gave up on the stream (EventSource.CLOSED: the server refused it, e.g. a pairing
   * it forgot). When given, the caller decides what comes next (pair again, then `reconnect()`);
   * otherwise a new stream is opened after reconnectMs.
   */
  onClosed?: () => void;
  /** Delay before opening a new stream after the browser gave up on one (EventSource.CLOSED). */
  reconnectMs?: number;
  setTimer?: (callback: () => void, ms: number) => unknown;
}

const CLOSED = 2;

/**
 * One stream at a time. EventSource reconnects by itself (the server asks for 2 s); when the
 * browser gives up (CLOSED, e.g. the server answered an error), a new stream is opened later.
 */
export class RelayListener {
  private source: EventSourceLike | undefined;
  private stopped = false;
  readonly deduper = new ActionDeduper();

  constructor(private readonly options: RelayListenerOptions) {}

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.source?.close();
    this.source = undefined;
  }

  /** Replaces the stream with a new one (its address may have changed). */
  reconnect(): void {
    if (this.stopped) return;
    this.source?.close();
    this.connect();
  }

  private connect(): void {
    if (this.stopped) return;
    const url = typeof this.options.url === 'function' ? this.options.url() : (this.options.url ?? '/__pip/events');
    const source = this.options.open(url);
    this.source = source;
    source.addEventListener('hello', () => {
      if (source !== this.source) return;
      this.deduper.streamOpened();
      this.options.onConnection?.(true);
    });
    source.addEventListener('phone', (event) => {
      if (source !== this.source) return;
      const present = parsePhoneEvent(event.data);
      if (present !== null) this.options.onPhone?.(present);
    });
    source.addEventListener('pip-action', (event) => {
      if (source !== this.source) return; // a stream being replaced
      const action = parseRelayedAction(event.data);
      if (action && this.deduper.accept(action.id)) this.options.onAction(action);
    });
    source.onerror = () => {
      if (source !== this.source) return;
      this.options.onConnection?.(false);
      if (source.readyState === CLOSED) {
        source.close();
        if (this.options.onClosed) return this.options.onClosed();
        const schedule = this.options.setTimer ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
        schedule(() => {
          if (source === this.source) this.connect();
        }, this.options.reconnectMs ?? 3000);
      }
    };
  }
}

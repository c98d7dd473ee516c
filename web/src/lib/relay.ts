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
  url?: string;
  open: (url: string) => EventSourceLike;
  onAction: (action: RelayedAction) => void;
  onConnection?: (connected: boolean) => void;
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

  private connect(): void {
    if (this.stopped) return;
    const source = this.options.open(this.options.url ?? '/__pip/events');
    this.source = source;
    source.addEventListener('hello', () => {
      this.deduper.streamOpened();
      this.options.onConnection?.(true);
    });
    source.addEventListener('pip-action', (event) => {
      if (source !== this.source) return; // a stream being replaced
      const action = parseRelayedAction(event.data);
      if (action && this.deduper.accept(action.id)) this.options.onAction(action);
    });
    source.onerror = () => {
      this.options.onConnection?.(false);
      if (source.readyState === CLOSED && source === this.source) {
        source.close();
        const schedule = this.options.setTimer ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
        schedule(() => {
          if (source === this.source) this.connect();
        }, this.options.reconnectMs ?? 3000);
      }
    };
  }
}

// The timer relay from the page's side: it listens to /__pip/events for the phone's (and the
// Pop-out's) actions and applies each relayed action exactly once by its event id, and it posts
// the timer snapshot to /__pip/state. The server numbers actions from 1 in each process and never
// replays them, so an id at or below the highest one seen, arriving first after a fresh `hello`,
// means the server restarted: its numbering begins again and is accepted. The events' names and
// data are the wire contract in contracts/relay-events.ts.
import type * as RelayContract from '#contracts/relay-events.ts';
import type { RelayedAction } from '#contracts/relay-events.ts';

export type { RelayedAction } from '#contracts/relay-events.ts';

type RelayParsers = Pick<typeof RelayContract, 'parseRelayEvent'>;
let parsers: Promise<RelayParsers> | undefined;

/**
 * The contract's parsers, fetched when the first stream opens rather than with the page: they
 * bring zod, which a cold load of /focus must not wait for (web/scripts/budget.ts).
 */
export function loadRelayParsers(): Promise<RelayParsers> {
  parsers ??= import('#contracts/relay-events.ts').catch((error: unknown) => {
    parsers = undefined; // offline before the chunk was cached: try again with the next event
    throw error;
  });
  return parsers;
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
  /** Events are handled one after the other, in the order they arrived, once the parsers are here. */
  private handled: Promise<void> = Promise.resolve();
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

  /** Resolves when every event received so far has been handled. */
  settled(): Promise<void> {
    return this.handled;
  }

  private inOrder(handle: (parseRelayEvent: RelayParsers['parseRelayEvent'] | undefined) => void): void {
    const step = this.handled.then(async () =>
      handle((await loadRelayParsers().catch(() => undefined))?.parseRelayEvent),
    );
    // A handler that throws is reported as an event listener's error would be, and the next event still runs.
    this.handled = step.catch((error: unknown) =>
      queueMicrotask(() => {
        throw error;
      }),
    );
  }

  private connect(): void {
    if (this.stopped) return;
    const url = typeof this.options.url === 'function' ? this.options.url() : (this.options.url ?? '/__pip/events');
    const source = this.options.open(url);
    this.source = source;
    void loadRelayParsers().catch(() => {});
    // Whether an event counts is decided when it arrives (on the stream in use); handling waits its turn.
    source.addEventListener('hello', () => {
      if (source !== this.source) return;
      this.inOrder(() => {
        this.deduper.streamOpened();
        this.options.onConnection?.(true);
      });
    });
    source.addEventListener('phone', (event) => {
      if (source !== this.source) return;
      this.inOrder((parseRelayEvent) => {
        const phone = parseRelayEvent?.('phone', event.data);
        if (phone) this.options.onPhone?.(phone.present);
      });
    });
    source.addEventListener('pip-action', (event) => {
      if (source !== this.source) return; // a stream being replaced
      this.inOrder((parseRelayEvent) => {
        const action = parseRelayEvent?.('pip-action', event.data);
        if (action && this.deduper.accept(action.id)) this.options.onAction(action);
      });
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

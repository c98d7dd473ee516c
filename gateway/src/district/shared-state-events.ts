// What both ways of reaching the district's shared state (database-shared-state.ts and
// backend-shared-state.ts) do with events, whatever carries them: this server's listeners hear its
// own event first, in a microtask, so publish never runs a listener inside its caller; the other
// servers get it on the wire. What arrives from the wire is decoded and this server's own echo
// dropped, and a reconnected event stream tells every listener to resync.
import { randomUUID } from 'node:crypto';
import {
  decodeEvent,
  encodeEvent,
  SharedStateListeners,
  type SharedEvent,
  type SharedState,
  type SharedStateFunction,
  type SharedStateListener,
  type SharedStateLog,
  type WireEvent,
} from './shared-state.ts';

export abstract class SharedStateEvents implements SharedState {
  abstract readonly kind: SharedState['kind'];
  readonly serverId = randomUUID();
  private readonly listeners: SharedStateListeners;

  constructor(log: SharedStateLog) {
    this.listeners = new SharedStateListeners(log);
  }

  abstract call(name: SharedStateFunction, args: Record<string, unknown>): Promise<unknown>;
  abstract ready(): Promise<void>;
  abstract close(): Promise<void>;

  /** Sends an event to the other servers. Never throws: a failure is logged. */
  protected abstract send(event: WireEvent): void;

  publish(event: SharedEvent): void {
    queueMicrotask(() => this.listeners.emit(event));
    this.send(encodeEvent(this.serverId, event));
  }

  subscribe(listener: SharedStateListener): () => void {
    return this.listeners.add(listener);
  }

  /** A payload from the event stream (JSON text or an object); this server's own were delivered when published. */
  protected heard(payload: unknown): void {
    const decoded = decodeEvent(payload);
    if (!decoded || decoded.from === this.serverId) return;
    this.listeners.emit(decoded.event);
  }

  /** The event stream connected again: events may have been missed. */
  protected resumed(): void {
    this.listeners.emit({ kind: 'resync' });
  }
}

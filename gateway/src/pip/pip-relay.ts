// The timer relay's state: the latest snapshot and the open /__pip/events streams. This is the one
// place the relay keeps anything in memory. Writes to a stream never wait: a client whose socket
// buffer is over the limit is dropped, so a slow tab cannot hold up or bloat the others.
import type { ServerResponse } from 'node:http';
import { idleSnapshot, type PipAction, type TimerSnapshot, type TimerSnapshotInput } from './pip-schemas.ts';

export const SSE_PING_INTERVAL_MS = 15_000;
export const SLOW_CLIENT_BUFFER_LIMIT = 256 * 1024;

export interface RelayedAction {
  id: number;
  action: PipAction['action'];
  target?: number;
  at: number;
}

export function formatSseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export class PipRelay {
  private snapshot: TimerSnapshot = idleSnapshot;
  private readonly streams = new Set<ServerResponse>();
  private nextActionId = 1;
  private readonly pingTimer: NodeJS.Timeout;

  constructor(pingIntervalMs = SSE_PING_INTERVAL_MS, private readonly bufferLimit = SLOW_CLIENT_BUFFER_LIMIT) {
    this.pingTimer = setInterval(() => this.broadcast(`: ping ${Date.now()}\n\n`), pingIntervalMs);
    this.pingTimer.unref();
  }

  get openStreams(): number {
    return this.streams.size;
  }

  latestSnapshot(): TimerSnapshot {
    return this.snapshot;
  }

  storeSnapshot(input: TimerSnapshotInput): TimerSnapshot {
    const { updatedAt: _clientClock, ...fields } = input;
    this.snapshot = { ...fields, updatedAt: Date.now() };
    return this.snapshot;
  }

  subscribe(stream: ServerResponse): void {
    this.streams.add(stream);
    stream.on('close', () => this.streams.delete(stream));
    this.write(stream, formatSseEvent('hello', { snapshot: this.snapshot, at: Date.now() }));
  }

  /** Relays one action to every open stream; returns the event and how many streams took it. */
  relayPipAction(action: PipAction): { event: RelayedAction; delivered: number } {
    const event: RelayedAction = { id: this.nextActionId++, ...action, at: Date.now() };
    return { event, delivered: this.broadcast(formatSseEvent('pip-action', event)) };
  }

  close(): void {
    clearInterval(this.pingTimer);
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }

  private broadcast(chunk: string): number {
    let delivered = 0;
    for (const stream of this.streams) if (this.write(stream, chunk)) delivered++;
    return delivered;
  }

  private write(stream: ServerResponse, chunk: string): boolean {
    if (stream.destroyed || stream.writableEnded) {
      this.streams.delete(stream);
      return false;
    }
    if (stream.writableLength > this.bufferLimit) {
      this.streams.delete(stream);
      stream.destroy();
      return false;
    }
    stream.write(chunk);
    return true;
  }
}

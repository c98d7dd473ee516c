// How fast the proxy reads what realtime clients send. The proxy relays each frame as it reads it,
// and the reading itself (every frame unmasked, framed again for the backend, unmasked there) is
// what a flood of large broadcasts costs the server's one thread: 100 sockets pushing 5 MB each had
// it read half a gigabyte, and answer nothing else for half a minute, before the backend could
// refuse any of it (the backend, in the same process, reads each frame only after the proxy has).
// The backend decides what a client may send and answers past its limits (localbase's realtime rate
// limits); this keeps the proxy from reading faster than a budget, for all client sockets together,
// by pausing the sockets that send the most: TCP then holds what they send. Nothing is dropped here.
//
// A socket that has sent more than its share lately (`lightBytesPerSecond`) is a heavy one. While
// the budget is spent, heavy sockets are paused; they are resumed one at a time as the budget
// refills, oldest first, each for a turn of at most one large frame, so that at any moment only a
// frame or so of theirs is being read. A light socket (a student's messages, a heartbeat) is never
// paused, whatever the others do.
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

export interface ReadBudget {
  /** Bytes per second the proxy reads from all client sockets together. */
  bytesPerSecond: number;
  /** What it may read at once before the rate applies. */
  burst: number;
  /** What one socket may send per second (and at once) and still count as light. */
  lightBytesPerSecond: number;
}

/**
 * The proxy's realtime read budget: far above what a school's clients send (the app's chat is sent
 * by the database; a client's broadcast is at most 256 KiB, and localbase lets one connection put at
 * most 1 MiB a second on the wire), far below what would hold the server's thread (reading a
 * mebibyte through the proxy and localbase costs it several milliseconds).
 */
export const REALTIME_READ_BUDGET: ReadBudget = {
  bytesPerSecond: 4 * 1024 * 1024,
  burst: 1024 * 1024,
  lightBytesPerSecond: 16 * 1024,
};

/** How often a waiting heavy socket is let read again, at most. */
const RESUME_EVERY_MS = 10;

/**
 * What a resumed socket may read in its turn, whatever the budget holds: the largest frame the
 * backend takes (1 MiB), so that a turn ends with at least one whole message relayed rather than
 * every waiting socket holding part of one. The budget's debt delays the next turn.
 */
const TURN_BYTES = 1024 * 1024;

interface Reader {
  /** Its own share: below zero, it is a heavy socket. */
  share: number;
  sharedAt: number;
  /** What is left of its turn, once resumed. */
  turn: number;
}

export function socketReadBudget(budget: ReadBudget) {
  let tokens = budget.burst;
  let refilledAt = performance.now();
  const readers = new Map<WebSocket, Reader>();
  /** Heavy sockets waiting for the budget, oldest first. */
  const waiting = new Set<WebSocket>();
  let resumeTimer: NodeJS.Timeout | undefined;

  const refill = (now: number) => {
    tokens = Math.min(budget.burst, tokens + ((now - refilledAt) / 1000) * budget.bytesPerSecond);
    refilledAt = now;
  };

  /** Lets the oldest waiting socket read again once the budget holds something; then the next. */
  function resumeNext(): void {
    resumeTimer = undefined;
    refill(performance.now());
    if (tokens > 0) {
      const [next] = waiting;
      if (next === undefined) return;
      waiting.delete(next);
      const reader = readers.get(next);
      if (reader) reader.turn = TURN_BYTES;
      next.resume();
    }
    if (waiting.size > 0) scheduleResume();
  }

  function scheduleResume(): void {
    const refilledInMs = tokens > 0 ? 0 : (-tokens / budget.bytesPerSecond) * 1000;
    resumeTimer ??= setTimeout(resumeNext, Math.max(RESUME_EVERY_MS, Math.ceil(refilledInMs)));
    resumeTimer.unref();
  }

  function readerOf(source: WebSocket, now: number): Reader {
    let reader = readers.get(source);
    if (!reader) {
      reader = { share: budget.lightBytesPerSecond, sharedAt: now, turn: 0 };
      readers.set(source, reader);
      source.once('close', () => {
        readers.delete(source);
        waiting.delete(source);
      });
    }
    return reader;
  }

  function onRead(source: WebSocket, bytes: number): void {
    const now = performance.now();
    const reader = readerOf(source, now);
    reader.share = Math.min(
      budget.lightBytesPerSecond,
      reader.share + ((now - reader.sharedAt) / 1000) * budget.lightBytesPerSecond,
    );
    reader.sharedAt = now;
    reader.share -= bytes;
    reader.turn -= bytes;
    refill(now);
    tokens -= bytes;
    if (tokens >= 0) return;
    // Spent: every heavy socket waits its turn (one in its turn reads on); light ones read on.
    for (const [socket, each] of readers) {
      if (each.share >= 0 || each.turn > 0 || waiting.has(socket) || socket.readyState !== socket.OPEN) continue;
      socket.pause();
      waiting.add(socket);
    }
    scheduleResume();
  }

  return {
    /**
     * Counts what the proxy reads from `source` as it reads it, chunk by chunk (each at most 64 KiB),
     * so that a socket is paused within a chunk of its budget rather than after a whole frame (up to
     * 1 MiB). ws keeps the connection's socket as `_socket` and offers no other way to it.
     */
    onConnect(source: WebSocket): void {
      (source as unknown as { _socket: Socket })._socket.on('data', (chunk: Buffer) => onRead(source, chunk.length));
    },
    /**
     * The link is going (the backend closed its side, say for the client's rate): a socket waiting
     * for its turn is dropped, since the close handshake would first read everything it queued.
     */
    onDisconnect(source: WebSocket): void {
      if (waiting.has(source)) source.terminate();
    },
  };
}

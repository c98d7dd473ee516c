// How log lines reach server.log: in batches, with a bound on what waits in memory.
//
// The rotating file stream writes each chunk it is given with a file write of its own, through
// libuv's thread pool. Given one chunk per log line, as pino hands them over, a busy server (a
// class of 200 at about 60 requests a second, four lines each with the proxy and localbase) asked
// for more writes than the pool completed, and every line not yet written waited in the stream's
// buffer: server.log fell minutes behind and the waiting lines grew the server's memory by some
// 17 MB a minute without end (tools/bench/README-soak.md). Here one write is in flight at a time,
// and the lines that arrive meanwhile go out with the next one, joined into one chunk of at most
// MAX_BATCH_BYTES (the stream rotates the file between chunks, so a chunk is also kept well below
// the rotation size). Should
// the file still fall behind by more than MAX_PENDING_BYTES, newer lines are dropped and counted,
// and the log says how many once it catches up: a log that skips lines under overload, rather than
// a server that runs out of memory.

/** What waits for the file at most; beyond it lines are dropped (and counted). */
export const MAX_PENDING_BYTES = 8 * 1024 * 1024;
/** One write's chunk at most (a single longer line goes alone). */
export const MAX_BATCH_BYTES = 64 * 1024;

export interface ChunkTarget {
  /** Node's Writable.write: `callback` runs once the chunk is written (or failed). */
  write(chunk: string, callback: (error?: Error | null) => void): unknown;
}

export class LogFileLines {
  private pending: string[] = [];
  private pendingBytes = 0;
  private dropped = 0;
  private writing = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly target: ChunkTarget,
    /** The line that says `count` lines were dropped (a JSON line, as the others). */
    private readonly droppedLine: (count: number) => string,
    private readonly limits = { maxPendingBytes: MAX_PENDING_BYTES, maxBatchBytes: MAX_BATCH_BYTES },
  ) {}

  /** Queues one line (with its newline); written now when the file is idle, else with the next batch. */
  write(line: string): void {
    if (this.pendingBytes + line.length > this.limits.maxPendingBytes) {
      this.dropped += 1;
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (!this.writing) this.flush();
  }

  /** Lines waiting for the file, in bytes (string lengths). */
  get waitingBytes(): number {
    return this.pendingBytes;
  }

  /** Resolves once every line given so far has been handed to the file and written. */
  idle(): Promise<void> {
    if (!this.writing && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private flush(): void {
    if (this.dropped > 0) {
      this.pending.push(this.droppedLine(this.dropped));
      this.dropped = 0;
    }
    if (this.pending.length === 0) {
      this.writing = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    let count = 0;
    let bytes = 0;
    while (count < this.pending.length) {
      const length = (this.pending[count] as string).length;
      if (count > 0 && bytes + length > this.limits.maxBatchBytes) break;
      bytes += length;
      count += 1;
    }
    const chunk = this.pending.splice(0, count).join('');
    this.pendingBytes -= bytes;
    this.writing = true;
    // A failed write is reported by the stream's 'error' listener; the next batch is tried all the same.
    this.target.write(chunk, () => this.flush());
  }
}

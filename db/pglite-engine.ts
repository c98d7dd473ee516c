// PGlite off the server's thread. The PGlite instance lives in a worker thread (pglite-worker.ts);
// here, in the main thread, each `pg` connection is a stream that carries the Postgres wire protocol
// to the worker and its answers back, and `pg` parses them with its own protocol parser, as it does
// for a socket. While a statement runs in the worker, the gateway's thread keeps answering.
//
// A statement cannot be interrupted inside WebAssembly, so a statement timeout is enforced from
// here: a watchdog that, when a connection's statement runs past the timeout set on it
// (limitStatements), terminates the worker and opens PGlite again on the same directory. Postgres's
// crash recovery keeps every committed transaction; the interrupted one is lost, as a cancelled one
// would be. The statement's caller gets what Postgres answers: SQLSTATE 57014, "canceling
// statement due to statement timeout". Requests queued behind it run on the new engine.
//
// PGlite has one session: while one statement runs, every other request waits behind it, up to
// that statement's timeout. That is why PGlite is the fallback, for one student or a demo.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import type { EngineReply, EngineRequest, WorkerOptions } from './pglite-worker-protocol.ts';
import { wholeMessagesLength } from './pglite-worker-protocol.ts';

export const MEMORY = 'memory://';

/** How long close() waits for PGlite to close cleanly before it ends the thread. */
export const CLOSE_GRACE_MS = 10_000;

export interface PgliteEngineOptions {
  /** PGlite's directory, or `memory://` (then a temporary directory, removed on close: see start()). */
  pgdata: string;
  /** A tarball from `dumpDataDir()` to start from instead of an empty cluster. */
  loadDataDir?: Blob;
  /** Postgres settings over PGLITE_SETTINGS (pglite.ts). */
  settings?: Readonly<Record<string, string>>;
  log?: (line: string) => void;
  /** The worker's entry module; default: pglite-worker next to this module (source or build). */
  workerUrl?: URL;
}

/** Why a connection ended without its client asking: the engine stopped under it. */
export class EngineStoppedError extends Error {
  readonly code = '57P01';
  constructor(reason: string) {
    super(`terminating connection: the embedded database ${reason}`);
  }
}

interface PendingExec {
  id: number;
  session: number;
  /** The statement timeout of the connection when it sent these bytes (null: none). */
  timeoutMs: number | null;
  /** Handed to a worker that is open: its time counts from here, not while the engine opens. */
  posted: boolean;
}

/**
 * The worker entry next to this module: from the TypeScript sources, a bootstrap that loads the
 * worker through tsx (a worker does not inherit the main thread's loader); in the build, the
 * bundled `pglite-worker.js` (tools/build/server-build.mjs puts it next to the chunk with this code).
 */
function defaultWorkerUrl(): URL {
  const fromSource = import.meta.url.endsWith('.ts');
  return new URL(fromSource ? './pglite-worker-source.mjs' : './pglite-worker.js', import.meta.url);
}

/** The ErrorResponse and ReadyForQuery Postgres sends for a statement its timeout cancelled. */
function statementTimeoutAnswer(): Buffer {
  const fields: [string, string][] = [
    ['S', 'ERROR'],
    ['V', 'ERROR'],
    ['C', '57014'],
    ['M', 'canceling statement due to statement timeout'],
  ];
  const body = Buffer.concat([
    ...fields.map(([code, value]) => Buffer.from(`${code}${value}\0`, 'utf8')),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(5);
  header.write('E', 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  const ready = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]); // 'Z', length 5, idle
  return Buffer.concat([header, body, ready]);
}

export class PgliteEngine {
  #worker: Worker | undefined;
  #ready: Promise<void> | undefined;
  /** Counts the worker threads started; bytes sent to one are never handed to the next. */
  #generation = 0;
  #sessions = new Map<number, WorkerSessionStream>();
  #pending: PendingExec[] = [];
  #watchdog: NodeJS.Timeout | undefined;
  #nextSession = 1;
  #nextExec = 1;
  #closing = false;
  #pgdata: string;
  #temporary = false;
  #restarts = 0;
  readonly #options: PgliteEngineOptions;

  constructor(options: PgliteEngineOptions) {
    this.#options = options;
    this.#pgdata = options.pgdata;
  }

  /** How often the engine was opened again after a timeout or a crash. */
  get restarts(): number {
    return this.#restarts;
  }

  /** PGlite's directory (a temporary one for `memory://`, known once start() has made it). */
  get directory(): string {
    return this.#pgdata;
  }

  /**
   * Opens PGlite in the worker. `memory://` becomes a temporary directory: an engine stopped by
   * the watchdog must find its data again, which an in-memory file system would lose with the thread.
   */
  async start(): Promise<void> {
    if (this.#pgdata === MEMORY) {
      this.#pgdata = await mkdtemp(path.join(os.tmpdir(), 'studyhall-pglite-'));
      this.#temporary = true;
    }
    await this.#spawn(this.#options.loadDataDir ? await this.#options.loadDataDir.arrayBuffer() : undefined);
  }

  /**
   * Opens PGlite in a new worker thread, once `previous` (the old thread's termination) is over:
   * two instances must never have the directory open at the same time.
   */
  #spawn(loadDataDir?: ArrayBuffer, previous?: Promise<unknown>): Promise<void> {
    const generation = ++this.#generation;
    const ready = (async () => {
      await previous;
      if (generation !== this.#generation || this.#closing) throw new EngineStoppedError('was closed');
      await this.#openWorker(loadDataDir);
    })();
    // An engine that never opened is reported to whoever waits for it, not opened again in a loop.
    ready.catch(() => {});
    this.#ready = ready;
    return ready;
  }

  #openWorker(loadDataDir?: ArrayBuffer): Promise<void> {
    const workerUrl = this.#options.workerUrl ?? defaultWorkerUrl();
    const workerData: WorkerOptions = {
      pgdata: this.#pgdata,
      ...(loadDataDir ? { loadDataDir } : {}),
      ...(this.#options.settings ? { settings: this.#options.settings } : {}),
    };
    const worker = new Worker(fileURLToPath(workerUrl), { workerData, transferList: loadDataDir ? [loadDataDir] : [] });
    this.#worker = worker;
    let opened = false;
    let failure = '';
    const ready = new Promise<void>((resolve, reject) => {
      const onFirst = (reply: EngineReply) => {
        if (reply.type === 'ready') {
          opened = true;
          resolve();
        } else if (reply.type === 'failed') {
          reject(new Error(`PGlite could not open ${this.#pgdata}: ${reply.message}`));
        }
      };
      worker.once('message', onFirst);
      worker.once('error', (error) => (failure = `: ${error.message}`));
      worker.once('exit', (code) =>
        reject(new Error(`the PGlite worker exited (${code}) before it opened ${this.#pgdata}${failure}`)),
      );
    });
    worker.on('message', (reply: EngineReply) => this.#onReply(worker, reply));
    worker.on('error', (error) => opened && this.#onWorkerGone(worker, `stopped: ${error.message}`));
    worker.on('exit', (code) => opened && this.#onWorkerGone(worker, `exited (${code})`));
    return ready;
  }

  /** A new connection for pg (the Pool's `stream` option). */
  connect(): WorkerSessionStream {
    const stream = new WorkerSessionStream(this, this.#nextSession++);
    this.#sessions.set(stream.session, stream);
    return stream;
  }

  /** @internal Sends a connection's protocol bytes to the worker, once it is ready. */
  send(stream: WorkerSessionStream, bytes: Uint8Array): void {
    const exec: PendingExec = {
      id: this.#nextExec++,
      session: stream.session,
      timeoutMs: stream.statementTimeoutMs,
      posted: false,
    };
    this.#pending.push(exec);
    // A copy of exactly these bytes (a Buffer may be a view on a shared pool), handed over without another copy.
    const copy = new Uint8Array(bytes);
    const generation = this.#generation;
    const ready = this.#ready;
    if (!ready || this.#closing) {
      stream.destroy(new EngineStoppedError('is not open'));
      return;
    }
    const post = () => {
      const worker = this.#worker;
      // The engine restarted meanwhile: the stream is gone already.
      if (generation !== this.#generation || !worker) return;
      const request: EngineRequest = { type: 'exec', id: exec.id, session: exec.session, bytes: copy.buffer };
      worker.postMessage(request, [copy.buffer]);
      exec.posted = true;
      if (this.#pending[0] === exec) this.#arm();
    };
    ready.then(post, (error: unknown) => stream.destroy(error as Error));
  }

  /** @internal A connection ended: nothing more will come for it. */
  forget(stream: WorkerSessionStream): void {
    this.#sessions.delete(stream.session);
  }

  #onReply(worker: Worker, reply: EngineReply): void {
    if (worker !== this.#worker) return;
    if (reply.type === 'data') {
      this.#sessions.get(reply.session)?.receive(Buffer.from(reply.bytes));
      this.#arm(); // the statement answered: the next one gets its full time
    } else if (reply.type === 'done') {
      const index = this.#pending.findIndex((exec) => exec.id === reply.id);
      if (index !== -1) this.#pending.splice(index, 1);
      this.#arm();
    }
  }

  /** (Re)starts the watchdog for the exchange the worker runs now: the oldest one not yet done. */
  #arm(): void {
    clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    const running = this.#pending[0];
    if (!running?.posted || running.timeoutMs === null) return;
    this.#watchdog = setTimeout(() => this.#timeOut(running), running.timeoutMs);
    this.#watchdog.unref();
  }

  #timeOut(exec: PendingExec): void {
    if (this.#pending[0] !== exec) return;
    const stream = this.#sessions.get(exec.session);
    this.#options.log?.(
      `pglite: a statement ran past its ${exec.timeoutMs} ms statement timeout; reopening the database`,
    );
    // Its caller gets Postgres's answer for a cancelled statement, then the connection ends: the
    // transaction it was in is gone with the engine, and so is everything the connection prepared.
    stream?.receive(statementTimeoutAnswer());
    this.#replaceWorker('was restarted after a statement timeout', stream);
  }

  #onWorkerGone(worker: Worker, what: string): void {
    if (worker !== this.#worker || this.#closing) return;
    this.#options.log?.(`pglite: the database thread ${what}; reopening the database`);
    this.#replaceWorker(`thread ${what}`);
  }

  /** Ends every connection (their callers see an error), stops the worker and opens a new one. */
  #replaceWorker(reason: string, answered?: WorkerSessionStream): void {
    const old = this.#worker;
    this.#worker = undefined;
    clearTimeout(this.#watchdog);
    this.#pending = [];
    for (const stream of this.#sessions.values()) {
      const stop = () => stream.destroy(new EngineStoppedError(reason));
      // The connection that was just answered ends once pg has read that answer; what it sends
      // meanwhile (its Terminate) belongs to the old engine and goes nowhere.
      if (stream === answered) {
        stream.detach();
        setImmediate(stop);
      } else {
        stop();
      }
    }
    this.#sessions.clear();
    this.#restarts += 1;
    this.#spawn(undefined, old?.terminate()).catch((error: unknown) =>
      this.#options.log?.(`pglite: reopening failed: ${(error as Error).message}`),
    );
  }

  /** Closes PGlite cleanly (a checkpoint, files closed), ends the thread, removes a temporary directory. */
  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#watchdog);
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) {
      await this.#ready?.catch(() => {});
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (reply: EngineReply) => {
          if (reply.type === 'closed') resolve();
        });
        worker.once('exit', () => resolve());
      });
      worker.postMessage({ type: 'close' } satisfies EngineRequest);
      // The close waits behind a statement still running; past the grace period the thread is
      // ended, and the next open recovers the directory as after a crash (nothing committed is lost).
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      clearTimeout(grace);
      await worker.terminate();
    }
    for (const stream of this.#sessions.values()) stream.destroy(new EngineStoppedError('was closed'));
    this.#sessions.clear();
    if (this.#temporary) await rm(this.#pgdata, { recursive: true, force: true });
  }
}

/**
 * One pg connection to the engine, shaped like the socket pg expects (`stream` option of
 * pg.Client/pg.Pool): pg writes protocol messages, the engine's answers are pushed back for pg's
 * parser. Writes made in the same tick (a query's Parse/Bind/Execute/Sync, a pipelined request)
 * go to the worker as one message.
 */
export class WorkerSessionStream extends Duplex {
  /** The statement timeout for what this connection sends next (limitStatements); null: none. */
  statementTimeoutMs: number | null = null;
  #buffered: Buffer[] = [];
  #flushScheduled = false;
  #startup = true;
  #detached = false;

  constructor(
    private readonly engine: PgliteEngine,
    readonly session: number,
  ) {
    super();
  }

  // The socket methods pg calls on connect.
  connect(): this {
    process.nextTick(() => this.emit('connect'));
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.#detached) {
      callback();
      return;
    }
    this.#buffered.push(chunk);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      queueMicrotask(() => this.#flush());
    }
    callback();
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.destroyed || this.#buffered.length === 0) return;
    const bytes = Buffer.concat(this.#buffered);
    const whole = wholeMessagesLength(bytes, this.#startup);
    this.#buffered = whole < bytes.length ? [bytes.subarray(whole)] : [];
    if (whole === 0) return;
    this.#startup = false;
    if (this.#detached) return;
    this.engine.send(this, bytes.subarray(0, whole));
  }

  /** @internal The engine this connection spoke to is gone: drop whatever is written from now on. */
  detach(): void {
    this.#detached = true;
    this.#buffered = [];
  }

  /** @internal The engine's answer for this connection. */
  receive(bytes: Buffer): void {
    if (!this.destroyed) this.push(bytes);
  }

  override _final(callback: (error?: Error | null) => void): void {
    // pg ends the stream after Terminate: like a server closing the socket, end and close.
    callback();
    this.push(null);
    this.destroy();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.engine.forget(this);
    callback(error);
  }
}

/** pg Pool settings for the engine: one connection (PGlite has one session), kept while idle. */
export function enginePoolConfig(engine: PgliteEngine): pg.PoolConfig {
  return {
    max: 1,
    // An idle connection is kept: a new one would reset the session (pglite-worker.ts).
    idleTimeoutMillis: 0,
    user: 'postgres',
    database: 'postgres',
    stream: (() => engine.connect()) as unknown as pg.PoolConfig['stream'],
  };
}

/**
 * The statement timeout for what `client` sends next, in milliseconds (null: none). On the embedded
 * engine the watchdog enforces it; on PostgreSQL it is a no-op (the request sets `statement_timeout`,
 * which Postgres enforces itself).
 */
export function limitStatements(client: pg.ClientBase, timeoutMs: number | null): void {
  const stream = (client as unknown as { connection?: { stream?: unknown } }).connection?.stream;
  if (stream instanceof WorkerSessionStream) stream.statementTimeoutMs = timeoutMs;
}

// Other students' reads while one statement holds the embedded engine. PGlite has one session: while
// a student's runaway statement runs (up to her role's statement timeout) and while the engine
// reopens after cutting it, every other request would wait. PostgreSQL serves them on other
// connections; here they are served by a second PGlite, opened on a crash image of the directory
// copied during the stall (crash-image.ts), which holds exactly what was committed before the
// statement began: what a concurrent reader on PostgreSQL sees too.
//
// The rules that keep it right:
// - Only read-only requests come here (their transaction is `begin read only`).
// - A snapshot is used only while the primary's write count (PgliteEngine.writes) is the one it
//   was copied at. The first exchange that may write ends it as it begins to run, before its
//   answer reaches anyone, so a read never misses something committed before it began, and a
//   student always reads her own writes.
// - A caller never spreads over both engines: while she has a read on one, her next read goes to
//   the same one, and a caller whose statement holds the primary waits for it. One student alone
//   cannot hold both.
// - A snapshot is made only when a read is waiting and the primary is held by another caller, at
//   most once per SNAPSHOT_MIN_INTERVAL_MS, and closed after SNAPSHOT_IDLE_CLOSE_MS unused.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { enginePoolConfig, PgliteEngine } from './pglite-engine.ts';

/** The least time between two snapshots made (each copies the directory and starts PGlite). */
export const SNAPSHOT_MIN_INTERVAL_MS = 5_000;
/** A snapshot nobody read for this long is closed (it holds a second PGlite's memory). */
export const SNAPSHOT_IDLE_CLOSE_MS = 30_000;

interface Snapshot {
  directory: string;
  engine: PgliteEngine;
  pool: pg.Pool;
  /** The primary's write count the copy holds. */
  writes: number;
  idleTimer: NodeJS.Timeout | undefined;
}

type EngineName = 'primary' | 'snapshot';

/** A checked-out client and the snapshot it belongs to (undefined: the primary's). */
interface Lease {
  client: pg.PoolClient;
  snapshot: Snapshot | undefined;
}

export interface SnapshotReadsOptions {
  log?: (line: string) => void;
  /** Closes an unused snapshot after this long (default SNAPSHOT_IDLE_CLOSE_MS). */
  idleCloseMs?: number;
  /** The least time between two snapshots made (default SNAPSHOT_MIN_INTERVAL_MS). */
  minIntervalMs?: number;
}

export class SnapshotReads {
  readonly #primary: PgliteEngine;
  readonly #options: SnapshotReadsOptions;
  #snapshot: Snapshot | undefined;
  #opening: Promise<Snapshot | undefined> | undefined;
  #lastMadeAt = Number.NEGATIVE_INFINITY;
  /** Per caller with reads in flight: the engine they run on (once decided) and how many. */
  #inFlight = new Map<string, { on: Promise<EngineName>; count: number }>();
  /** Where each checked-out client came from and for whom. */
  #clients = new WeakMap<pg.PoolClient, { caller: string; snapshot: Snapshot | undefined }>();
  #waiters = new Set<() => void>();
  #unsubscribe: () => void;
  #closed = false;
  #opened = 0;

  constructor(primary: PgliteEngine, options: SnapshotReadsOptions = {}) {
    this.#primary = primary;
    this.#options = options;
    this.#unsubscribe = primary.onChange(() => this.#primaryChanged());
  }

  /** How many snapshots were opened (for tests and the bench). */
  get opened(): number {
    return this.#opened;
  }

  /** Where snapshots live: beside PGlite's directory, owned (and emptied) by this process. */
  get #root(): string {
    return `${this.#primary.directory}.snapshots`;
  }

  /** Removes what an earlier process left (a snapshot is never reopened: it is behind by then). */
  async start(): Promise<void> {
    await rm(this.#root, { recursive: true, force: true });
  }

  /**
   * A client for one read-only request of `caller`: the primary's (`fromPrimary`) or a snapshot's,
   * whichever can answer first under the rules above. Hand it back with release().
   */
  async acquire(caller: string, fromPrimary: () => Promise<pg.PoolClient>): Promise<pg.PoolClient> {
    const reads = this.#inFlight.get(caller);
    if (reads) {
      // Her next read goes where her first one went, once that is decided.
      reads.count += 1;
      try {
        const current = (await reads.on) === 'snapshot' ? this.#current() : undefined;
        const client = current ? await this.#connect(current).catch(() => undefined) : undefined;
        return this.#remember(client ?? (await fromPrimary()), caller, client ? current : undefined);
      } catch (error) {
        this.#forget(caller);
        throw error;
      }
    }
    let decide: (on: EngineName) => void = () => {};
    this.#inFlight.set(caller, { on: new Promise((resolve) => (decide = resolve)), count: 1 });
    try {
      const { client, snapshot } = await this.#race(caller, fromPrimary);
      decide(snapshot ? 'snapshot' : 'primary');
      return this.#remember(client, caller, snapshot);
    } catch (error) {
      decide('primary');
      this.#forget(caller);
      throw error;
    }
  }

  /** Gives back a client from acquire(). */
  release(client: pg.PoolClient, broken: boolean): void {
    const held = this.#clients.get(client);
    this.#clients.delete(client);
    if (held) {
      this.#forget(held.caller);
      if (held.snapshot) this.#armIdleClose(held.snapshot);
    }
    client.release(broken);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe();
    await this.#opening?.catch(() => undefined);
    if (this.#snapshot) await this.#retire(this.#snapshot, 'the database closes');
    this.#wake();
    await rm(this.#root, { recursive: true, force: true });
  }

  /** The primary's client, or a snapshot's if one can answer first (see #snapshotClient). */
  async #race(caller: string, fromPrimary: () => Promise<pg.PoolClient>): Promise<Lease> {
    // A caller whose own statement holds the primary waits for it, also while it reopens.
    if (this.#closed || this.#primary.stall?.caller === caller)
      return { client: await fromPrimary(), snapshot: undefined };
    const primary = fromPrimary();
    let answered = false;
    const settled = primary.then(
      () => (answered = true),
      () => (answered = true),
    );
    const alternative = this.#snapshotClient(caller, () => answered, settled);
    const fromPrimaryOnly = (): Promise<Lease> => primary.then((client) => ({ client, snapshot: undefined }));
    try {
      const winner = await Promise.race<Lease>([
        fromPrimaryOnly(),
        alternative.then((found): Lease | Promise<Lease> => found ?? fromPrimaryOnly()),
      ]);
      if (winner.snapshot) {
        primary.then(
          (client) => client.release(),
          () => {},
        );
      } else {
        void alternative.then((found) => found?.client.release());
      }
      return winner;
    } catch (error) {
      void alternative.then((found) => found?.client.release());
      throw error;
    }
  }

  #remember(client: pg.PoolClient, caller: string, snapshot: Snapshot | undefined): pg.PoolClient {
    this.#clients.set(client, { caller, snapshot });
    if (snapshot) clearTimeout(snapshot.idleTimer);
    return client;
  }

  #forget(caller: string): void {
    const reads = this.#inFlight.get(caller);
    if (reads && --reads.count === 0) this.#inFlight.delete(caller);
  }

  /** The snapshot, if it still holds everything the primary has committed. */
  #current(): Snapshot | undefined {
    const snapshot = this.#snapshot;
    return snapshot && snapshot.writes === this.#primary.writes ? snapshot : undefined;
  }

  /**
   * A snapshot's client once one can answer while the primary cannot: at once if a current
   * snapshot exists, else when the primary is held by another caller (a snapshot is then made).
   * Undefined when the primary answers first or no snapshot can be had.
   */
  async #snapshotClient(
    caller: string,
    primaryAnswered: () => boolean,
    primarySettled: Promise<unknown>,
  ): Promise<{ client: pg.PoolClient; snapshot: Snapshot } | undefined> {
    while (!primaryAnswered() && !this.#closed) {
      const current = this.#current();
      if (current) {
        const client = await this.#connect(current).catch(() => undefined);
        return client ? { client, snapshot: current } : undefined;
      }
      const stall = this.#primary.stall;
      const heldByAnother = stall !== undefined && !stall.reopening && stall.caller !== caller;
      if (heldByAnother && this.#untilMayMake() === 0) {
        // One that could not be made (behind before it opened, say) is tried again after the interval.
        await this.#make();
        continue;
      }
      // Held, but a snapshot was made a moment ago: look again once another may be made.
      const retry = heldByAnother ? delay(this.#untilMayMake()) : undefined;
      await Promise.race([this.#opening ?? this.#nextChange(), primarySettled, ...(retry ? [retry] : [])]);
    }
    return undefined;
  }

  async #connect(snapshot: Snapshot): Promise<pg.PoolClient> {
    const client = await snapshot.pool.connect();
    if (this.#snapshot !== snapshot) {
      client.release();
      throw new Error('the snapshot was closed');
    }
    return client;
  }

  /** Milliseconds until a snapshot may be made (0: now, or one is being made and can be joined). */
  #untilMayMake(): number {
    if (this.#opening !== undefined) return 0;
    const next = this.#lastMadeAt + (this.#options.minIntervalMs ?? SNAPSHOT_MIN_INTERVAL_MS);
    return Math.max(0, next - Date.now());
  }

  /** Makes a snapshot, or waits for the one being made. */
  async #make(): Promise<void> {
    this.#opening ??= this.#open().finally(() => (this.#opening = undefined));
    await this.#opening;
  }

  async #open(): Promise<Snapshot | undefined> {
    this.#lastMadeAt = Date.now();
    await mkdir(this.#root, { recursive: true });
    const directory = await mkdtemp(path.join(this.#root, 'copy-'));
    let engine: PgliteEngine | undefined;
    try {
      const writes = await this.#primary.copyWhileStalled(directory);
      if (writes !== this.#primary.writes || this.#closed) throw new Error('the primary wrote during the copy');
      // A statement that ended during the copy needs no second engine: its readers are served.
      if (!this.#primary.stall) throw new Error('the statement ended during the copy');
      engine = new PgliteEngine({ pgdata: directory, ...(this.#options.log ? { log: this.#options.log } : {}) });
      await engine.start();
      const pool = new pg.Pool(enginePoolConfig(engine));
      pool.on('error', (error) => this.#options.log?.(`pglite snapshot pool: ${error.message}`));
      const snapshot: Snapshot = { directory, engine, pool, writes, idleTimer: undefined };
      if (writes !== this.#primary.writes || this.#closed) {
        await this.#dispose(snapshot);
        return undefined;
      }
      this.#snapshot = snapshot;
      this.#opened += 1;
      this.#armIdleClose(snapshot);
      this.#options.log?.('pglite: one statement holds the database; reads are answered from a snapshot meanwhile');
      this.#wake();
      return snapshot;
    } catch (error) {
      this.#options.log?.(`pglite: no snapshot for reads: ${(error as Error).message}`);
      await engine?.close().catch(() => {});
      await rm(directory, { recursive: true, force: true });
      return undefined;
    }
  }

  #armIdleClose(snapshot: Snapshot): void {
    clearTimeout(snapshot.idleTimer);
    snapshot.idleTimer = setTimeout(
      () => void this.#retire(snapshot, 'unused'),
      this.#options.idleCloseMs ?? SNAPSHOT_IDLE_CLOSE_MS,
    );
    snapshot.idleTimer.unref();
  }

  #primaryChanged(): void {
    const snapshot = this.#snapshot;
    if (snapshot && snapshot.writes !== this.#primary.writes) void this.#retire(snapshot, 'the primary wrote');
    this.#wake();
  }

  /** No new reads from it; closed once the reads on it end. */
  async #retire(snapshot: Snapshot, why: string): Promise<void> {
    if (this.#snapshot !== snapshot) return;
    this.#snapshot = undefined;
    this.#options.log?.(`pglite: snapshot closed (${why})`);
    await this.#dispose(snapshot);
  }

  async #dispose(snapshot: Snapshot): Promise<void> {
    clearTimeout(snapshot.idleTimer);
    // pg's Pool.end() waits for every checked-out client to come back.
    await snapshot.pool.end().catch(() => {});
    await snapshot.engine.close().catch(() => {});
    await rm(snapshot.directory, { recursive: true, force: true });
  }

  #nextChange(): Promise<void> {
    return new Promise((resolve) => this.#waiters.add(resolve));
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The snapshot reads of a pool whose engine has them (the embedded database in its worker). */
const readsOfPool = new WeakMap<pg.Pool, SnapshotReads>();

export function attachSnapshotReads(pool: pg.Pool, reads: SnapshotReads): void {
  readsOfPool.set(pool, reads);
}

export function snapshotReadsOf(pool: pg.Pool): SnapshotReads | undefined {
  return readsOfPool.get(pool);
}

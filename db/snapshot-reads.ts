// Other students' reads while one statement holds the embedded engine. PGlite has one session: while
// a student's runaway statement runs (up to her role's statement timeout) and while the engine
// reopens after cutting it, every other request would wait. PostgreSQL serves them on other
// connections; here they are served by a second PGlite, opened on a crash image of the directory
// (crash-image.ts).
//
// Two modes:
// - 'warm' (the product's): a snapshot is kept open all the time, copied again in the background
//   when the primary has written since (see REFRESH_AFTER_MS and QUIET_MS). It is a read replica
//   with a bounded lag, used only while the primary is held by another caller, so the first read
//   of a stall is answered at once instead of after a copy and an open (1 to 2.5 s). It costs a
//   second PGlite's memory for as long as the server runs.
// - 'on-demand': a snapshot is made when a read finds the primary held, and closed when unused.
//
// The rules that keep it right:
// - Only read-only requests come here (their transaction is `begin read only`).
// - A snapshot answers only while another caller's exchange holds the primary (a free primary
//   answers every read itself).
// - A snapshot that misses nothing but upkeep (its copy began at or after the primary's last
//   exchange that may have written, upkeep aside: PgliteEngine.lastReadableWrite) may answer any
//   such read. The first exchange that may write makes it behind as that exchange begins to run,
//   before its answer reaches anyone.
// - A snapshot that is behind answers a caller only in 'warm' mode, only once the stall has lasted
//   LONG_STALL_MS, only if its copy is at most MAX_LAG_MS old, and only if it holds every write she
//   may have to read back
//   (PgliteEngine.writesSeenBy: her own, and all untagged ones, localbase's work for nobody in
//   particular). So a student always reads her own writes; another student's may reach her up to
//   MAX_LAG_MS late, during a stall only, as from a Supabase read replica. In 'on-demand' mode a
//   snapshot that is behind is closed instead.
// - A caller never spreads over both engines: while she has a read on one, her next read goes to
//   the same one, and a caller whose statement holds the primary waits for it. One student alone
//   cannot hold both.
// - A snapshot is made for a waiting read only when the primary is held by another caller and no
//   snapshot can answer her, at most once per SNAPSHOT_MIN_INTERVAL_MS.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { enginePoolConfig, PgliteEngine, type Stall } from './pglite-engine.ts';

/** The least time between two snapshots made for waiting reads (each copies the directory and starts PGlite). */
export const SNAPSHOT_MIN_INTERVAL_MS = 5_000;
/**
 * The snapshot's PGlite runs with a smaller buffer pool than the primary's (pglite.ts): it answers
 * only during stalls, a page it misses is one read from the operating system's cache, and each
 * PGlite's pool becomes resident as it is touched. 8 MB keeps about 30 MB of the second engine's
 * 125 MB off (measured beside a primary at 32 MB).
 */
const SNAPSHOT_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '8MB' };
/** 'on-demand': a snapshot nobody read for this long is closed (it holds a second PGlite's memory). */
export const SNAPSHOT_IDLE_CLOSE_MS = 30_000;
/** 'warm': a snapshot behind the primary is copied again once its copy is this old, writes or not. */
export const REFRESH_AFTER_MS = 30_000;
/**
 * 'warm': ... or sooner, once nothing has been written for QUIET_MS and the copy is QUIET_MIN_AGE_MS
 * old: after a burst of writes the snapshot catches up within seconds, while writes that never
 * pause cost one copy and one open (about 1.5 s of CPU) per REFRESH_AFTER_MS.
 */
export const QUIET_MS = 2_000;
export const QUIET_MIN_AGE_MS = 10_000;
/** 'warm': after a copy that could not be made or opened, the next is tried this much later. */
export const REFRESH_RETRY_MS = 5_000;
/**
 * 'warm': a snapshot behind another's writes answers only once the stall has lasted this long: a
 * hiccup of the primary (a statement of 50 ms under load) is waited out with everything, a real
 * stall (a runaway statement, a reopening) is answered with a copy that may be behind.
 */
export const LONG_STALL_MS = 1_000;
/** 'warm': a snapshot behind the primary whose copy is older than this answers nobody. */
export const MAX_LAG_MS = 60_000;

export type SnapshotMode = 'warm' | 'on-demand';

/** A mode, or 'off': read-only requests wait for the primary like every other. */
export type SnapshotReadsSetting = SnapshotMode | 'off';

interface Snapshot {
  directory: string;
  engine: PgliteEngine;
  pool: pg.Pool;
  /** The primary's write count as the copy began: the copy holds everything committed by then. */
  writes: number;
  /** When the copy began (Date.now()). */
  copiedAt: number;
  idleTimer: NodeJS.Timeout | undefined;
  /** Set once it is being closed. */
  retired: boolean;
}

type EngineName = 'primary' | 'snapshot';

/** A checked-out client and the snapshot it belongs to (undefined: the primary's). */
interface Lease {
  client: pg.PoolClient;
  snapshot: Snapshot | undefined;
}

export interface SnapshotReadsOptions {
  log?: (line: string) => void;
  /** Default 'on-demand'; openDatabase gives the product 'warm'. */
  mode?: SnapshotMode;
  /** 'on-demand': closes an unused snapshot after this long (default SNAPSHOT_IDLE_CLOSE_MS). */
  idleCloseMs?: number;
  /** The least time between two snapshots made for waiting reads (default SNAPSHOT_MIN_INTERVAL_MS). */
  minIntervalMs?: number;
  /** 'warm': copies again a snapshot that is behind once it is this old (default REFRESH_AFTER_MS). */
  refreshAfterMs?: number;
  /** 'warm': ... or once nothing was written for this long (default QUIET_MS) */
  quietMs?: number;
  /** ... and the copy is this old (default QUIET_MIN_AGE_MS). */
  quietMinAgeMs?: number;
  /** 'warm': the oldest copy that may answer while behind (default MAX_LAG_MS). */
  maxLagMs?: number;
  /** 'warm': how long a stall lasts before a copy that is behind answers (default LONG_STALL_MS). */
  longStallMs?: number;
}

export class SnapshotReads {
  readonly #primary: PgliteEngine;
  readonly #options: SnapshotReadsOptions;
  readonly #warm: boolean;
  #snapshot: Snapshot | undefined;
  #opening: Promise<Snapshot | undefined> | undefined;
  #lastMadeAt = Number.NEGATIVE_INFINITY;
  /** Per caller with reads in flight: the engine they run on (once decided) and how many. */
  #inFlight = new Map<string, { on: Promise<EngineName>; count: number }>();
  /** Where each checked-out client came from and for whom. */
  #clients = new WeakMap<pg.PoolClient, { caller: string; snapshot: Snapshot | undefined }>();
  #waiters = new Set<() => void>();
  #unsubscribe: () => void;
  #refreshTimer: NodeJS.Timeout | undefined;
  /** The first snapshot of keepWarm(). */
  #warming: Promise<void> | undefined;
  /** The primary's last readable write when last seen, and when it last changed. */
  #writesSeen: number;
  #lastWriteAt = Date.now();
  #lastFailedAt = Number.NEGATIVE_INFINITY;
  #closed = false;
  #opened = 0;

  constructor(primary: PgliteEngine, options: SnapshotReadsOptions = {}) {
    this.#primary = primary;
    this.#options = options;
    this.#warm = options.mode === 'warm';
    this.#writesSeen = primary.lastReadableWrite;
    this.#unsubscribe = primary.onChange(() => this.#primaryChanged());
  }

  /** How many snapshots were opened (for tests and the bench). */
  get opened(): number {
    return this.#opened;
  }

  /** The primary's write count the open snapshot's copy began at (undefined: none is open). */
  get snapshotWrites(): number | undefined {
    return this.#snapshot?.writes;
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
   * 'warm': opens the first snapshot now and keeps one open from then on (a no-op otherwise). Call
   * it once the database is migrated; resolves when the first snapshot is open (or failed, logged).
   */
  keepWarm(): Promise<void> {
    if (!this.#warm || this.#closed) return Promise.resolve();
    if (!this.#warming) {
      this.#refreshTimer = setInterval(() => this.#refreshIfDue(), Math.min(this.#options.quietMs ?? QUIET_MS, 1_000));
      this.#refreshTimer.unref();
      this.#warming = this.#make();
    }
    return this.#warming;
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
        const usable = (await reads.on) === 'snapshot' ? this.#usableFor(caller) : undefined;
        const client = usable ? await this.#connect(usable).catch(() => undefined) : undefined;
        return this.#remember(client ?? (await fromPrimary()), caller, client ? usable : undefined);
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
    if (this.#warm && !this.#closed) {
      this.#options.log?.(`pglite: snapshot for reads closed; ${this.#opened} copies opened since the start`);
    }
    this.#closed = true;
    clearInterval(this.#refreshTimer);
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

  /**
   * The snapshot `caller` may read now, only while another caller holds the primary (a free
   * primary answers every read: a second engine would only compete with it for the CPU): the
   * current one, or in 'warm' mode one that is behind if it is recent enough and holds all she
   * must read back.
   */
  #usableFor(caller: string): Snapshot | undefined {
    const snapshot = this.#snapshot;
    const stall = this.#primary.stall;
    if (!snapshot || !stall || stall.caller === caller) return undefined;
    // It misses nothing but upkeep: as good as the primary.
    if (snapshot.writes >= this.#primary.lastReadableWrite) return snapshot;
    if (!this.#warm || this.#untilBehindMayAnswer(stall) > 0) return undefined;
    if (Date.now() - snapshot.copiedAt > (this.#options.maxLagMs ?? MAX_LAG_MS)) return undefined;
    return this.#primary.writesSeenBy(caller) <= snapshot.writes ? snapshot : undefined;
  }

  /** Milliseconds until a snapshot that is behind may answer during `stall` (LONG_STALL_MS). */
  #untilBehindMayAnswer(stall: Stall): number {
    return Math.max(0, stall.since + (this.#options.longStallMs ?? LONG_STALL_MS) - performance.now());
  }

  /**
   * A snapshot's client once one can answer while the primary cannot: at once if a snapshot can
   * answer her (#usableFor), else when the primary is held by another caller (a snapshot is then
   * made). Undefined when the primary answers first or no snapshot can be had.
   */
  async #snapshotClient(
    caller: string,
    primaryAnswered: () => boolean,
    primarySettled: Promise<unknown>,
  ): Promise<{ client: pg.PoolClient; snapshot: Snapshot } | undefined> {
    while (!primaryAnswered() && !this.#closed) {
      const usable = this.#usableFor(caller);
      if (usable) {
        const client = await this.#connect(usable).catch(() => undefined);
        return client ? { client, snapshot: usable } : undefined;
      }
      const stall = this.#primary.stall;
      const heldByAnother = stall !== undefined && !stall.reopening && stall.caller !== caller;
      // Kept open, a snapshot that is behind may answer her once the stall is long: until then
      // she waits, and makes no copy of her own.
      const untilBehind =
        this.#warm && this.#snapshot && stall && stall.caller !== caller ? this.#untilBehindMayAnswer(stall) : 0;
      if (heldByAnother && untilBehind === 0 && this.#untilMayMake() === 0) {
        // One that could not be made (behind before it opened, say) is tried again after the interval.
        await this.#make();
        continue;
      }
      // Held, but a snapshot was made a moment ago: look again once another may be made, or once
      // the stall is long enough for one that is behind (a timer may fire a fraction early).
      const retry = heldByAnother ? delay(this.#untilMayMake()) : undefined;
      const later = untilBehind > 0 ? delay(Math.ceil(untilBehind) + 1) : undefined;
      await Promise.race([
        this.#opening ?? this.#nextChange(),
        primarySettled,
        ...(retry ? [retry] : []),
        ...(later ? [later] : []),
      ]);
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

  /**
   * 'warm': copies again a snapshot that is behind and old enough (see REFRESH_AFTER_MS, QUIET_MS),
   * or one that could not be opened. Also while a statement holds the primary (nothing can be
   * written then, so a stall of a few seconds brings a new copy), but not while it reopens: it
   * cannot be copied then.
   */
  #refreshIfDue(): void {
    // One copy at a time, and after a failed one (logged) the next is tried REFRESH_RETRY_MS later.
    if (this.#closed || this.#opening || this.#primary.stall?.reopening) return;
    if (Date.now() - this.#lastFailedAt < REFRESH_RETRY_MS) return;
    const snapshot = this.#snapshot;
    if (!snapshot) {
      void this.#make();
      return;
    }
    if (snapshot.writes >= this.#primary.lastReadableWrite) return;
    const now = Date.now();
    const age = now - snapshot.copiedAt;
    const due =
      age >= (this.#options.refreshAfterMs ?? REFRESH_AFTER_MS) ||
      (now - this.#lastWriteAt >= (this.#options.quietMs ?? QUIET_MS) &&
        age >= (this.#options.quietMinAgeMs ?? QUIET_MIN_AGE_MS));
    if (due) void this.#make();
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
      const copiedAt = Date.now();
      const writes = await this.#primary.copyTo(directory);
      if (this.#closed) throw new Error('the database closes');
      if (!this.#warm) {
        // On demand, a copy is worth opening only to serve a stall with everything committed.
        if (writes < this.#primary.lastReadableWrite) throw new Error('the primary wrote during the copy');
        if (!this.#primary.stall) throw new Error('the statement ended during the copy');
      }
      engine = new PgliteEngine({
        pgdata: directory,
        settings: SNAPSHOT_SETTINGS,
        ...(this.#options.log ? { log: this.#options.log } : {}),
      });
      await engine.start();
      const pool = new pg.Pool(enginePoolConfig(engine));
      pool.on('error', (error) => this.#options.log?.(`pglite snapshot pool: ${error.message}`));
      const snapshot: Snapshot = { directory, engine, pool, writes, copiedAt, idleTimer: undefined, retired: false };
      if (this.#closed || (!this.#warm && writes < this.#primary.lastReadableWrite)) {
        await this.#dispose(snapshot);
        return undefined;
      }
      const previous = this.#snapshot;
      this.#snapshot = snapshot;
      if (previous) void this.#retire(previous, 'a newer copy is open');
      this.#primary.forgetWritesThrough(writes);
      this.#opened += 1;
      this.#armIdleClose(snapshot);
      // Kept open, only the first is worth a line (a refresh is routine); on demand, each one is.
      if (!this.#warm) {
        this.#options.log?.('pglite: one statement holds the database; reads are answered from a snapshot meanwhile');
      } else if (this.#opened === 1) {
        this.#options.log?.('pglite: a snapshot for reads while one statement holds the database is kept open');
      }
      this.#wake();
      return snapshot;
    } catch (error) {
      this.#lastFailedAt = Date.now();
      this.#options.log?.(`pglite: no snapshot for reads: ${(error as Error).message}`);
      await engine?.close().catch(() => {});
      await rm(directory, { recursive: true, force: true });
      return undefined;
    }
  }

  /** 'on-demand' only: a 'warm' snapshot stays open until a newer one replaces it. */
  #armIdleClose(snapshot: Snapshot): void {
    if (this.#warm) return;
    clearTimeout(snapshot.idleTimer);
    snapshot.idleTimer = setTimeout(
      () => void this.#retire(snapshot, 'unused'),
      this.#options.idleCloseMs ?? SNAPSHOT_IDLE_CLOSE_MS,
    );
    snapshot.idleTimer.unref();
  }

  #primaryChanged(): void {
    if (this.#primary.lastReadableWrite !== this.#writesSeen) {
      this.#writesSeen = this.#primary.lastReadableWrite;
      this.#lastWriteAt = Date.now();
    }
    const snapshot = this.#snapshot;
    if (!this.#warm && snapshot && snapshot.writes < this.#primary.lastReadableWrite) {
      void this.#retire(snapshot, 'the primary wrote');
    }
    this.#wake();
  }

  /** No new reads from it; closed once the reads on it end. */
  async #retire(snapshot: Snapshot, why: string): Promise<void> {
    if (snapshot.retired) return;
    snapshot.retired = true;
    if (this.#snapshot === snapshot) this.#snapshot = undefined;
    if (!this.#warm) this.#options.log?.(`pglite: snapshot closed (${why})`);
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

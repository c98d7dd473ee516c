// How a server hears, at once, that another server (or anyone else) committed a change realtime
// delivers. The capture trigger and realtime.send notify on WAKEUP_CHANNEL (capture.ts,
// database-broadcast.ts); PostgreSQL sends the notification to every session listening on it when
// the writing transaction commits, never for one that rolls back. Each server keeps one connection
// of its own listening, outside the pool so that it never waits for one, and reads the queues when
// told (hub.ts). The notification carries nothing: the queues stay the one source of truth, so a
// notification lost while the connection was down costs nothing but time: on every (re)connect the
// server reads the queues once, and the hub's timer reads them anyway.
//
// Only where the database has more than one session: PGlite has one, shared by the pool, and one
// process per DATA_DIR (its lock), so every write it sees came through this server, which reads
// the queues after each one itself.
import type pg from 'pg';

/** The NOTIFY channel a committed change or database broadcast wakes the servers on. */
export const WAKEUP_CHANNEL = 'localbase_realtime';

/** Waits between attempts to listen again after the connection was lost: doubling up to the last. */
const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 5000];

export interface WakeupsOptions {
  /** A new, unconnected client to the database (the pool's settings). */
  connect: () => pg.Client;
  /** Called on each notification, and once every time the listening starts (catching up). */
  onWake: () => void;
  log: (error: unknown) => void;
}

export class Wakeups {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;

  constructor(private readonly options: WakeupsOptions) {}

  /** Starts listening; answers once the first attempt has listened or failed (it keeps trying). */
  async start(): Promise<void> {
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  /** Whether a connection is listening now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = this.options.connect();
    // An ended connection (the database restarted, a network cut) is followed by another.
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      if (this.stopped) return;
      // Said once per outage, not at every attempt while it lasts.
      if (this.failures === 0) this.options.log(error ?? new Error('realtime wakeup connection ended'));
      this.retry();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', () => this.options.onWake());
    try {
      await client.connect();
      await client.query(`listen ${WAKEUP_CHANNEL}`);
    } catch (error) {
      onLost(error);
      await client.end().catch(() => {});
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.failures = 0;
    // What was committed while nobody listened.
    this.options.onWake();
  }

  private retry(): void {
    const delay = RECONNECT_DELAYS_MS[Math.min(this.failures, RECONNECT_DELAYS_MS.length - 1)] as number;
    this.failures += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.listen(), delay);
    this.timer.unref();
  }
}

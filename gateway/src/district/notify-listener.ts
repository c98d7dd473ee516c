// One connection that LISTENs on a PostgreSQL channel for as long as the server runs. A NOTIFY is
// delivered only to sessions listening when it commits, so a connection lost (the database
// restarted, a network blip, an idle timeout of a managed database) loses what was sent meanwhile:
// the listener connects again with a growing delay and, once listening again, reports that it
// resumed, so its owner reads what it may have missed from the tables.
import pg from 'pg';
import type { SharedStateLog } from './shared-state.ts';

/** Waits between attempts to connect again: from the first to the longest, doubling. */
export const LISTEN_RETRY_MS = { first: 100, longest: 5_000 } as const;

export interface NotifyListenerOptions {
  /** Connection settings (those of the pool the rest of the server uses). */
  connection: pg.ClientConfig;
  channel: string;
  onPayload: (payload: string) => void;
  /** Listening again after the connection was lost. */
  onResumed: () => void;
  log: SharedStateLog;
}

export class NotifyListener {
  private client: pg.Client | undefined;
  private retryMs: number = LISTEN_RETRY_MS.first;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private listenedOnce = false;
  private firstListen: Promise<void>;
  private resolveFirst: () => void = () => {};
  private failing = false;

  constructor(private readonly options: NotifyListenerOptions) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(options.channel)) throw new Error(`not a channel name: ${options.channel}`);
    this.firstListen = new Promise((resolve) => {
      this.resolveFirst = resolve;
    });
  }

  /** Starts listening; resolves once the first LISTEN is in place (retrying until it is). */
  start(): Promise<void> {
    void this.connect();
    return this.firstListen;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // The password is named apart: pg.Pool keeps it in its options as a non-enumerable property,
    // which a spread leaves out.
    const { connection } = this.options;
    const client = new pg.Client({ ...connection, password: connection.password, keepAlive: true });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === this.options.channel && message.payload !== undefined)
        this.options.onPayload(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the listening connection ended')));
    try {
      await client.connect();
      await client.query(`listen ${this.options.channel}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client || this.closed) return;
    this.retryMs = LISTEN_RETRY_MS.first;
    if (this.failing) this.options.log.info({ channel: this.options.channel }, 'shared state: listening again');
    this.failing = false;
    if (this.listenedOnce) this.options.onResumed();
    this.listenedOnce = true;
    this.resolveFirst();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('end');
    client.on('error', () => {});
    void client.end().catch(() => {});
    if (this.closed) return;
    if (!this.failing)
      this.options.log.warn(
        { err: error, channel: this.options.channel },
        'shared state: the listening connection was lost; connecting again',
      );
    this.failing = true;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(LISTEN_RETRY_MS.longest, this.retryMs * 2);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.resolveFirst();
    if (!client) return;
    client.removeAllListeners('end');
    client.on('error', () => {});
    await client.end().catch(() => {});
  }
}

// The shared state through the database this process's localbase opened (the embedded engine or
// DATABASE_URL): each call is one statement on localbase's pool, as the database owner (the
// functions are service-role only for the API roles), and events go out with pg_notify and come
// in on one LISTEN connection of their own (notify-listener.ts).
//
// PGlite has one session and one process (its DATA_DIR is locked to this server): there is no
// second server to hear, so events are delivered here only and no connection listens.
import type pg from 'pg';
import { NotifyListener } from './notify-listener.ts';
import type { SharedStateFunction, SharedStateLog, WireEvent } from './shared-state.ts';
import { SharedStateEvents } from './shared-state-events.ts';

/** The PostgreSQL channel every gateway of a district listens on. */
export const GATEWAY_NOTIFY_CHANNEL = 'studyhall_gateway';

const ARGUMENT_NAME = /^p_[a-z0-9_]+$/;

export interface DatabaseSharedStateOptions {
  pool: pg.Pool;
  /** Whether other servers may share the database (false on PGlite: nobody else can open it). */
  listen: boolean;
  log: SharedStateLog;
  /** The connection of the LISTEN session; default: the pool's own settings. */
  connection?: pg.ClientConfig;
}

/** A value as a statement parameter: objects travel as JSON text, which the function reads as jsonb. */
function asParameter(value: unknown): unknown {
  if (value === undefined) return null;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(value);
  return value;
}

export class DatabaseSharedState extends SharedStateEvents {
  readonly kind = 'database';
  private readonly listener: NotifyListener | undefined;
  private readonly listening: Promise<void>;

  constructor(private readonly options: DatabaseSharedStateOptions) {
    super(options.log);
    if (!options.listen) {
      this.listening = Promise.resolve();
      return;
    }
    this.listener = new NotifyListener({
      connection: options.connection ?? (options.pool as unknown as { options: pg.ClientConfig }).options,
      channel: GATEWAY_NOTIFY_CHANNEL,
      onPayload: (payload) => this.heard(payload),
      onResumed: () => this.resumed(),
      log: options.log,
    });
    this.listening = this.listener.start();
  }

  async call(name: SharedStateFunction, args: Record<string, unknown>): Promise<unknown> {
    const names = Object.keys(args);
    for (const argument of names)
      if (!ARGUMENT_NAME.test(argument)) throw new Error(`not an argument name: ${argument}`);
    const list = names.map((argument, index) => `${argument} => $${index + 1}`).join(', ');
    const { rows } = await this.options.pool.query<{ result: unknown }>(
      `select public.${name}(${list}) as result`,
      names.map((argument) => asParameter(args[argument])),
    );
    const result = rows[0]?.result;
    // A void function answers '' through node-postgres.
    return result === '' || result === undefined ? null : result;
  }

  ready(): Promise<void> {
    return this.listening;
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  protected send(event: WireEvent): void {
    if (!this.listener) return;
    this.options.pool
      .query('select pg_notify($1, $2)', [GATEWAY_NOTIFY_CHANNEL, JSON.stringify(event)])
      .catch((error: unknown) => this.options.log.warn({ err: error }, 'shared state: an event could not be sent'));
  }
}

// What the gateways of a district share: state that must be one for every server behind the load
// balancer (the timer relay's pairings and snapshots, the rate limits and password budgets, ended
// admin sessions, the push identity), kept in the database by the `gateway_*` functions
// (supabase/migrations/*_gateway_*.sql), and short events that tell every server something changed.
//
// Two ways to reach them, one interface (docs/deployment.md):
//   - database (database-shared-state.ts): localbase runs in this process over the embedded
//     engine or DATABASE_URL; calls go through its pool, events through PostgreSQL LISTEN/NOTIFY;
//   - backend (backend-shared-state.ts): the gateway fronts a hosted project (BACKEND_URL) and has no
//     database connection; calls go through its Data API with the service key, events through
//     its Realtime broadcast on a private topic.
// Both deliver and hear events the same way (shared-state-events.ts); only the wire differs.
// A server alone (SHARED_STATE=local) keeps all of it in its own memory and uses neither.
//
// Events carry ids only, never data: a NOTIFY payload is limited to 8000 bytes, and whoever hears
// one reads what it needs from the tables. So a forged or replayed event can only make a server
// read again, and a lost one is made good by the `resync` every subscriber gets after the event
// stream reconnects.
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** A change another server may need to act on. */
export type SharedEvent =
  /** A phone's action was stored for a relay channel: servers with its streams relay it. */
  | { kind: 'relay-action'; channel: number; action: number }
  /** A relay channel's snapshot changed: phones waiting for a newer one read it. */
  | { kind: 'relay-snapshot'; channel: number }
  /** A phone reached a relay channel after a quiet spell: its pages are told a phone follows them. */
  | { kind: 'relay-phone'; channel: number };

/** Delivered to subscribers after the event stream was interrupted: events may have been missed. */
export type Resync = { kind: 'resync' };

export type SharedStateListener = (event: SharedEvent | Resync) => void;

/** The functions of the gateway's shared state (service role only in the database). */
export type SharedStateFunction =
  | 'gateway_hit_rate_window'
  | 'gateway_begin_password_attempt'
  | 'gateway_settle_password_attempt'
  | 'gateway_end_admin_session'
  | 'gateway_end_admin_account'
  | 'gateway_admin_session_ended'
  | 'gateway_push_identity'
  | 'gateway_prune_shared_state'
  | 'gateway_relay_pair'
  | 'gateway_relay_page'
  | 'gateway_relay_phone'
  | 'gateway_relay_store_snapshot'
  | 'gateway_relay_read_snapshot'
  | 'gateway_relay_send_action'
  | 'gateway_relay_read_actions'
  | 'gateway_relay_report_streams';

export interface SharedState {
  /** database: this process's localbase pool and LISTEN/NOTIFY; backend: a hosted project's APIs. */
  readonly kind: 'database' | 'backend';
  /** This server, as its events name it (random per start). */
  readonly serverId: string;
  /** Calls one of the shared state's database functions with named arguments; its JSON answer. */
  call(name: SharedStateFunction, args: Record<string, unknown>): Promise<unknown>;
  /**
   * Tells every server, this one first, about a change. Never throws: an event that cannot be sent
   * is logged, and the servers that missed it catch up from the tables.
   */
  publish(event: SharedEvent): void;
  subscribe(listener: SharedStateListener): () => void;
  /** Resolves once events from other servers are heard (the first LISTEN, or the first join). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** How the shared state logs: the part of pino it uses. */
export interface SharedStateLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/**
 * The name a counter or a record is kept under: a SHA-256 digest of its parts, so no address,
 * e-mail or token is stored as it is (and every key has one shape the database checks).
 */
export function sharedKey(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0'), 'utf8').digest('hex');
}

// On the wire: {"s": <server>, "k": "a"|"s"|"p", "c": <channel>, "a"?: <action>}, a few dozen bytes.
const wireEvent = z.object({
  s: z.string().min(1).max(64),
  k: z.enum(['a', 's', 'p']),
  c: z.number().int().positive(),
  a: z.number().int().positive().optional(),
});

export type WireEvent = z.infer<typeof wireEvent>;

export function encodeEvent(serverId: string, event: SharedEvent): WireEvent {
  switch (event.kind) {
    case 'relay-action':
      return { s: serverId, k: 'a', c: event.channel, a: event.action };
    case 'relay-snapshot':
      return { s: serverId, k: 's', c: event.channel };
    case 'relay-phone':
      return { s: serverId, k: 'p', c: event.channel };
  }
}

/** The event and the server that sent it (from JSON text or an object), or undefined for anything else. */
export function decodeEvent(payload: unknown): { from: string; event: SharedEvent } | undefined {
  let value = payload;
  if (typeof payload === 'string') {
    try {
      value = JSON.parse(payload);
    } catch {
      return undefined;
    }
  }
  const parsed = wireEvent.safeParse(value);
  if (!parsed.success) return undefined;
  const { s: from, k, c: channel, a: action } = parsed.data;
  if (k === 'a') return action === undefined ? undefined : { from, event: { kind: 'relay-action', channel, action } };
  return { from, event: { kind: k === 's' ? 'relay-snapshot' : 'relay-phone', channel } };
}

/** The listeners of one process: what every implementation does with an event, here and heard. */
export class SharedStateListeners {
  private readonly listeners = new Set<SharedStateListener>();

  constructor(private readonly log: SharedStateLog) {}

  add(listener: SharedStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: SharedEvent | Resync): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.log.warn({ err: error, event: event.kind }, 'shared state: a listener failed');
      }
    }
  }
}

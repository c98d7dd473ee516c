// What the gateway_relay_* functions answer (supabase/migrations/*_gateway_relay.sql), checked as
// every answer the gateway depends on is. Channel and action ids are bigint in the database: a
// bigint a function returns as such arrives as text through node-postgres and as a number through
// the Data API, inside jsonb always as a number.
import { z } from 'zod';
import { relayedAction, type RelayedAction } from '#contracts/relay-events.ts';
import { idleSnapshot, timerSnapshot, type TimerSnapshot } from '#contracts/timer-snapshot.ts';

const id = z.coerce.number().int().positive();

/** gateway_relay_page, gateway_relay_store_snapshot: an id or a time, or null. */
export const idOrNull = z.union([z.null(), id]);

export const pairAnswer = z.union([
  z.object({ channel: id }),
  z.object({ refused: z.enum(['server_full', 'code_taken']) }),
  z.object({ refused: z.literal('address_full'), held: z.number().int().nonnegative() }),
]);

export const phoneAnswer = z.union([
  z.object({ channel: id, snapshot: z.unknown() }),
  z.object({ refused: z.literal('unknown') }),
  z.object({ refused: z.enum(['address_locked', 'server_paused']), retry_after_ms: z.number().int().positive() }),
]);

export const actionAnswer = z.union([
  z.null(),
  z.object({ id, at: z.number().int().nonnegative(), delivered: z.number().int().nonnegative() }),
]);

/** A stored snapshot (the idle one before any post); a shape this server cannot read counts as none. */
export function snapshotOf(value: unknown): TimerSnapshot {
  if (value === null || value === undefined) return idleSnapshot;
  const parsed = timerSnapshot.safeParse(value);
  return parsed.success ? parsed.data : idleSnapshot;
}

/** Stored actions as the event stream carries them; one this server cannot read is left out. */
export function actionsOf(value: unknown): RelayedAction[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    const parsed = relayedAction.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

// The timer relay's server-sent events on GET /__pip/events (docs/api.md#sse-events): their names
// and the JSON each `data:` line carries. The gateway writes them through formatRelayEvent, typed by
// this module; the focus page reads them with the parsers below.
import * as z from 'zod/mini';
import { COUNT_ACTIONS, TIMER_ACTIONS, targetValue } from './phone-actions.ts';
import { timerSnapshot } from './timer-snapshot.ts';

const serverMs = z.int().check(z.minimum(0));
/** Actions are numbered from 1 in each server process; in a district, by the shared database. */
const actionId = z.int().check(z.positive());

/** First on every stream: the latest snapshot. */
export const helloEvent = z.object({ snapshot: timerSnapshot, at: serverMs });
/** Whether a phone follows the page's channel (sent when one arrives, leaves, and after `hello`). */
export const phoneEvent = z.object({ present: z.boolean(), at: serverMs });
/** A phone's action, relayed with the server's id and time. */
export const relayedAction = z.discriminatedUnion('action', [
  z.object({ id: actionId, action: z.enum(COUNT_ACTIONS), at: serverMs }),
  z.object({ id: actionId, action: z.enum(TIMER_ACTIONS), at: serverMs }),
  z.object({ id: actionId, action: z.literal('target'), target: targetValue, at: serverMs }),
]);

export const relayEvents = { hello: helloEvent, phone: phoneEvent, 'pip-action': relayedAction } as const;

export type RelayEventName = keyof typeof relayEvents;
export type RelayEventData = { [Name in RelayEventName]: z.infer<(typeof relayEvents)[Name]> };
export type HelloEvent = RelayEventData['hello'];
export type PhoneEvent = RelayEventData['phone'];
export type RelayedAction = RelayEventData['pip-action'];

/** One event as the stream carries it. */
export function formatRelayEvent<Name extends RelayEventName>(name: Name, data: RelayEventData[Name]): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The data of one event, or null when it is not JSON or not that event's shape. */
export function parseRelayEvent<Name extends RelayEventName>(name: Name, data: string): RelayEventData[Name] | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = relayEvents[name].safeParse(value);
  return parsed.success ? (parsed.data as RelayEventData[Name]) : null;
}

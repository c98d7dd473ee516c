// Realtime subscriptions for the tests: a channel joined (or its refusal), and a postgres_changes
// subscription that resolves once the server confirmed the join, keeps every payload it gets, and
// lets a test await the next one with a deadline.
import type {
  RealtimeChannel,
  RealtimePostgresChangesPayload,
  RealtimePostgresInsertPayload,
  SupabaseClient,
} from '@supabase/supabase-js';

export type InsertPayload = RealtimePostgresInsertPayload<Record<string, unknown>>;
export type ChangePayload = RealtimePostgresChangesPayload<Record<string, unknown>>;

export interface Listener<Payload = InsertPayload> {
  received: Payload[];
  /** The next payload, or undefined when none arrives within timeoutMs. */
  next(timeoutMs: number): Promise<Payload | undefined>;
}

/** Subscribes a channel: its refusal (the server's reason, or the status), or undefined once joined. */
export function joinOutcome(channel: RealtimeChannel): Promise<Error | undefined> {
  return new Promise((resolve) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve(undefined);
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') resolve(error ?? new Error(status));
    });
  });
}

/** Subscribes a channel and resolves once the server confirmed the join; a refusal rejects. */
export async function subscribed<Channel extends RealtimeChannel>(channel: Channel): Promise<Channel> {
  const refusal = await joinOutcome(channel);
  if (refusal) throw refusal;
  return channel;
}

export function listenForInserts(client: SupabaseClient, table: string, filter: string): Promise<Listener> {
  return listenForChanges(client, table, filter, 'INSERT') as Promise<Listener>;
}

/** Subscribes to one event (or `*`) of a table; `filter` may be empty for none. */
export async function listenForChanges(
  client: SupabaseClient,
  table: string,
  filter: string,
  event: 'INSERT' | 'UPDATE' | 'DELETE' | '*',
): Promise<Listener<ChangePayload>> {
  const received: ChangePayload[] = [];
  const waiters: ((payload: ChangePayload) => void)[] = [];
  const binding = filter === '' ? { event, schema: 'public', table } : { event, schema: 'public', table, filter };
  await subscribed(
    client
      .channel(`${table}-${filter}-${Math.random()}`)
      .on('postgres_changes', binding as { event: '*'; schema: string }, (payload: ChangePayload) => {
        received.push(payload);
        waiters.shift()?.(payload);
      }),
  );
  return {
    received,
    next: (timeoutMs) =>
      new Promise((resolve) => {
        const waiter = (payload: ChangePayload) => {
          clearTimeout(timer);
          resolve(payload);
        };
        // A waiter that timed out leaves the queue, so the next payload goes to the next waiter.
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          resolve(undefined);
        }, timeoutMs);
        waiters.push(waiter);
      }),
  };
}

/**
 * Removes every channel and waits until the client has finished disconnecting. realtime-js 2.79
 * disconnects when its last channel goes and ignores connect() until the close completes (up to
 * 100 ms), so a subscribe in that window would be buffered and never sent: a client race, not a
 * server one, which real apps avoid the same way.
 */
export async function removeAllChannelsAndSettle(client: SupabaseClient): Promise<void> {
  await client.removeAllChannels();
  const realtime = client.realtime as unknown as { isDisconnecting?: () => boolean };
  for (let waited = 0; realtime.isDisconnecting?.() && waited < 2000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// A postgres_changes INSERT subscription for the realtime tests: resolves once the server confirmed
// the join, keeps every payload it gets, and lets a test await the next one with a deadline.
import type { RealtimePostgresInsertPayload, SupabaseClient } from '@supabase/supabase-js';

export type InsertPayload = RealtimePostgresInsertPayload<Record<string, unknown>>;

export interface Listener {
  received: InsertPayload[];
  /** The next payload, or undefined when none arrives within timeoutMs. */
  next(timeoutMs: number): Promise<InsertPayload | undefined>;
}

export async function listenForInserts(client: SupabaseClient, table: string, filter: string): Promise<Listener> {
  const received: InsertPayload[] = [];
  const waiters: ((payload: InsertPayload) => void)[] = [];
  await new Promise<void>((resolve, reject) => {
    client
      .channel(`${table}-${filter}-${Math.random()}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table, filter }, (payload) => {
        received.push(payload as InsertPayload);
        waiters.shift()?.(payload as InsertPayload);
      })
      .subscribe((status, error) => {
        if (status === 'SUBSCRIBED') resolve();
        else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(error ?? new Error(status));
      });
  });
  return {
    received,
    next: (timeoutMs) =>
      new Promise((resolve) => {
        const waiter = (payload: InsertPayload) => {
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

// A realtime subscription on one table of the database (postgres_changes through supabase-js at
// /__backend), for the feeds the screens follow: the database's row-level security decides, per
// subscriber, which INSERTs and UPDATEs reach whom, so an event says only that something the
// student may read has changed; the screens then read their RPC again.
import type { RealtimeChannel, RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import { client } from './backend.ts';

export type FeedStatus = 'connecting' | 'live' | 'down';

export interface TableFeed {
  table: string;
  /** A realtime row filter (`user_id=eq.<id>`), or a function that finds it once the client is ready. */
  filter?: () => Promise<string | undefined>;
}

/** Follows one table's changes until the returned stop is called. */
export function followTable(
  feed: TableFeed,
  onEvent: (payload: RealtimePostgresChangesPayload<Record<string, unknown>>) => void,
  onStatus: (status: FeedStatus) => void,
): () => void {
  let stopped = false;
  let channel: RealtimeChannel | undefined;
  void client()
    .then(async (sb) => {
      // A page that subscribes as it opens would otherwise join before supabase-js has read the
      // stored session into realtime, with the anon key: joined as anon, RLS lets nothing through,
      // and nothing later tells the channel the student's token.
      await sb.realtime.setAuth();
      const filter = await feed.filter?.();
      if (stopped) return;
      channel = sb
        .channel(`${feed.table}:${Math.random().toString(36).slice(2)}`)
        .on(
          'postgres_changes',
          { event: '*', schema: 'public', table: feed.table, ...(filter ? { filter } : {}) },
          (payload) => {
            if (!stopped) onEvent(payload);
          },
        )
        .subscribe((status) => {
          if (stopped) return;
          if (status === 'SUBSCRIBED') onStatus('live');
          else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT' || status === 'CLOSED') onStatus('down');
        });
    })
    .catch(() => {
      if (!stopped) onStatus('down');
    });
  return () => {
    stopped = true;
    const held = channel;
    channel = undefined;
    if (held) void client().then((sb) => sb.removeChannel(held));
  };
}

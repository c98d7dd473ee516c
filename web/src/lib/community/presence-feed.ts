// Presence as it changes: a realtime subscription on presence_feed, the table the database keeps
// of what each student's board shows and lets only her fellow members and buddies read (RLS
// filters every INSERT and UPDATE per subscriber). An event is only a signal: the screens read
// their board or overview RPC again, so what they show is always what the RPC returns. A DELETE
// (someone turned stealth mode on) carries only the row's random key, so it says nobody's name.
import type { RealtimeChannel } from '@supabase/supabase-js';
import { z } from 'zod';
import { client } from './backend.ts';

export type PresenceFeedStatus = 'connecting' | 'live' | 'down';

/** Whose presence changed; null when a row went away and whose it was is not said. */
export interface PresenceChange {
  userId: string | null;
}

const feedRow = z.object({ user_id: z.string() });

/** The change an event stands for (exported for tests). */
export function presenceChangeOf(payload: { eventType: string; new: unknown }): PresenceChange {
  if (payload.eventType === 'DELETE') return { userId: null };
  const parsed = feedRow.safeParse(payload.new);
  return { userId: parsed.success ? parsed.data.user_id : null };
}

/** Follows presence changes until the returned stop is called. */
export function followPresence(
  onChange: (change: PresenceChange) => void,
  onStatus: (status: PresenceFeedStatus) => void,
): () => void {
  let stopped = false;
  let channel: RealtimeChannel | undefined;
  void client()
    .then(async (sb) => {
      // A page that subscribes as it opens (the buddies page) would otherwise join before
      // supabase-js has read the stored session into realtime, with the anon key: joined as anon,
      // RLS lets nothing through, and nothing later tells the channel the student's token.
      await sb.realtime.setAuth();
      if (stopped) return;
      channel = sb
        .channel(`presence-feed:${Math.random().toString(36).slice(2)}`)
        .on('postgres_changes', { event: '*', schema: 'public', table: 'presence_feed' }, (payload) => {
          if (!stopped) onChange(presenceChangeOf(payload));
        })
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

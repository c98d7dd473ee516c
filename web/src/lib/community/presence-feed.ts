// Presence as it changes: a realtime subscription on presence_feed, the table the database keeps
// of what each student's board shows and lets only her fellow members and buddies read (RLS
// filters every INSERT and UPDATE per subscriber). An event is only a signal: the screens read
// their board or overview RPC again, so what they show is always what the RPC returns. A DELETE
// (someone turned stealth mode on) carries only the row's random key, so it says nobody's name.
import { z } from 'zod';
import { followTable, type FeedStatus } from './table-feed.ts';

export type PresenceFeedStatus = FeedStatus;

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
  return followTable({ table: 'presence_feed' }, (payload) => onChange(presenceChangeOf(payload)), onStatus);
}

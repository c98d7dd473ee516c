// Buddy changes as they happen: a realtime subscription on the student's own row of buddy_feed,
// which the database touches whenever what she may read of her connections changes (a request
// arrives, is accepted, declined or cancelled, a buddy is removed; a block reaches the blocked side
// exactly as a removal does: docs/database.md#buddy-feed). Only she may read her row, so the event
// carries nothing about anyone; the Buddies page reads community_get_overview again.
import { currentUserId } from './backend.ts';
import { followTable, type FeedStatus } from './table-feed.ts';

/** Follows the student's buddy changes until the returned stop is called (a change names nothing: null). */
export function followBuddies(onChange: (change: null) => void, onStatus: (status: FeedStatus) => void): () => void {
  return followTable(
    {
      table: 'buddy_feed',
      // Her row only: realtime need not check anyone else's subscription against it.
      filter: async () => {
        const userId = await currentUserId();
        return userId ? `user_id=eq.${userId}` : undefined;
      },
    },
    () => onChange(null),
    onStatus,
  );
}

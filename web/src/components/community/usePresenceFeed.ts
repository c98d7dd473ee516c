// A screen that shows presence follows presence_feed while it is open (useLiveFeed.ts): `onChange`
// runs on every change that concerns it, and the status says whether realtime is up.
import { followPresence, type PresenceChange, type PresenceFeedStatus } from '../../lib/community/presence-feed.ts';
import { useLiveFeed } from './useLiveFeed.ts';

export function usePresenceFeed(
  concerns: (change: PresenceChange) => boolean,
  reread: () => Promise<unknown>,
): PresenceFeedStatus {
  return useLiveFeed(followPresence, concerns, reread);
}

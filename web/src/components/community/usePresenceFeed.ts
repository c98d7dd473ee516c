// A screen that shows presence follows presence_feed while it is open: `onChange` runs on every
// change that concerns it (the screen re-reads its RPC), one read at a time, with changes that
// arrive during a read answered by one more read after it; the status says whether realtime is
// up, so the screen polls quickly only while it is down.
import { useEffect, useRef, useState } from 'preact/hooks';
import { followPresence, type PresenceChange, type PresenceFeedStatus } from '../../lib/community/presence-feed.ts';

export function usePresenceFeed(
  concerns: (change: PresenceChange) => boolean,
  reread: () => Promise<unknown>,
): PresenceFeedStatus {
  const [status, setStatus] = useState<PresenceFeedStatus>('connecting');
  const latest = useRef({ concerns, reread });
  latest.current = { concerns, reread };
  useEffect(() => {
    let reading = false;
    let again = false;
    const run = async (): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          await latest.current.reread().catch(() => undefined);
        } while (again);
      } finally {
        reading = false;
      }
    };
    return followPresence(
      (change) => {
        if (latest.current.concerns(change)) void run();
      },
      (next) => {
        setStatus(next);
        // Back after a drop: whatever changed while the socket was away.
        if (next === 'live') void run();
      },
    );
  }, []);
  return status;
}

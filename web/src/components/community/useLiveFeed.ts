// A screen follows a live feed while it is open: `reread` runs on every change that concerns it
// (the screen reads its RPC again), one read at a time, with changes that arrive during a read
// answered by one more read after it, and once more when the feed comes back after a drop; the
// status says whether realtime is up, so the screen polls quickly only while it is down.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FeedStatus } from '../../lib/community/table-feed.ts';

export type Follow<Change> = (onChange: (change: Change) => void, onStatus: (status: FeedStatus) => void) => () => void;

export function useLiveFeed<Change>(
  follow: Follow<Change>,
  concerns: (change: Change) => boolean,
  reread: () => Promise<unknown>,
): FeedStatus {
  const [status, setStatus] = useState<FeedStatus>('connecting');
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
    return follow(
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

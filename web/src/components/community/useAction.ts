// One button's action against the backend: busy while it runs, and the failure in the words a
// student reads (describeCommunityError), cleared when the next attempt starts.
import { useState } from 'preact/hooks';
import { describeCommunityError } from '../../lib/community/words.ts';

export interface Action {
  busy: boolean;
  error: string | null;
  act: (work: () => Promise<unknown>) => Promise<void>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(describeCommunityError(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, act };
}

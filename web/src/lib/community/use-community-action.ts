// One community action at a time from a screen: while it runs the screen shows it busy, and a
// refusal from the server becomes the sentence the screen shows (describeCommunityError), so every
// button that calls the backend fails the same way.
import { useState } from 'preact/hooks';
import { describeCommunityError } from './words.ts';

export interface CommunityAction {
  busy: boolean;
  error: string | null;
  setError: (error: string | null) => void;
  /** Runs `work`; true when it succeeded. A failure is kept in `error`, never thrown. */
  run: (work: () => Promise<unknown>) => Promise<boolean>;
}

export function useCommunityAction(): CommunityAction {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (work: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(describeCommunityError(failure));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

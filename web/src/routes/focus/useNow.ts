// The page's clock for drawing: a few ticks a second, and at once when the tab becomes visible
// again. Only drawing uses it; the time itself always comes from completionAtMs.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';

export function useNow(intervalMs = 250) {
  const now = useSignal(Date.now());
  useEffect(() => {
    const update = () => (now.value = Date.now());
    const timer = setInterval(update, intervalMs);
    document.addEventListener('visibilitychange', update);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', update);
    };
  }, [intervalMs]);
  return now;
}

// What happened to the latest tap, announced to screen readers and gone after a few seconds.
import { useEffect, useState } from 'preact/hooks';
import type { Companion } from '../state/companion.ts';

export const NOTICE_VISIBLE_MS = 3_500;

export function NoticeLine({ companion }: { companion: Companion }) {
  const notice = companion.notice.value;
  const [visibleSerial, setVisibleSerial] = useState<number | undefined>(undefined);
  useEffect(() => {
    if (!notice) return;
    setVisibleSerial(notice.serial);
    const timer = setTimeout(() => setVisibleSerial(undefined), NOTICE_VISIBLE_MS);
    return () => clearTimeout(timer);
  }, [notice?.serial]);
  const shown = notice && visibleSerial === notice.serial;
  return (
    <p class={`notice${shown ? ` notice--${notice.tone} notice--shown` : ''}`} role="status" aria-live="polite">
      {shown ? notice.text : ''}
    </p>
  );
}

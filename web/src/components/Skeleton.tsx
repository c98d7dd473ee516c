// Loading states shaped like the screen that is coming, and a note when it takes long.
import { useEffect, useState } from 'preact/hooks';

export function SlowNote({ what = 'This screen' }: { what?: string }) {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), 10_000);
    return () => clearTimeout(timer);
  }, []);
  return slow ? (
    <p class="slow-note" role="status">
      {what} is taking longer than usual. The server may be busy; it keeps trying.
    </p>
  ) : null;
}

export function PageSkeleton() {
  return (
    <div class="page" aria-busy="true" aria-label="Loading">
      <div class="skeleton skeleton-title" />
      <div class="skeleton-block">
        <div class="skeleton skeleton-line skeleton-long" />
        <div class="skeleton skeleton-line" />
        <div class="skeleton skeleton-line skeleton-short" />
      </div>
      <div class="skeleton-block">
        <div class="skeleton skeleton-card" />
      </div>
      <SlowNote />
    </div>
  );
}

// The QR code of the remote's link. The encoder loads with the first QR drawn (a lazy chunk), so
// the focus screen's cold load stays small; a skeleton of the same size holds its place meanwhile.
import { useEffect, useState } from 'preact/hooks';
import type { QrDrawing } from '../../lib/qr-matrix.ts';

type Drawn = { link: string; drawing: QrDrawing } | { link: string; failed: true };

export function QrCode({ link, label }: { link: string; label: string }) {
  const [drawn, setDrawn] = useState<Drawn | null>(null);
  useEffect(() => {
    let current = true;
    import('../../lib/qr-matrix.ts')
      .then(({ drawQr }) => current && setDrawn({ link, drawing: drawQr(link) }))
      .catch(() => current && setDrawn({ link, failed: true }));
    return () => {
      current = false;
    };
  }, [link]);
  if (!drawn || drawn.link !== link) return <div class="qr qr-loading skeleton" aria-hidden="true" />;
  if ('failed' in drawn)
    return (
      <p class="small muted qr-failed">
        The QR code could not be drawn (this page is offline). Type the address below instead.
      </p>
    );
  const { size, path } = drawn.drawing;
  return (
    <svg class="qr" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={size} height={size} class="qr-light" />
      <path d={path} class="qr-dark" />
    </svg>
  );
}

// A QR code as one SVG path, drawn by the page itself (no markup strings, nothing inline that the
// Content-Security-Policy would refuse). uqr encodes; this module is loaded only when the phone
// remote's panel opens, so it never weighs on a cold load of /focus.
import { encode } from 'uqr';

export interface QrDrawing {
  /** Modules per side, the quiet zone included. */
  size: number;
  /** Every dark module, as runs of squares along each row: `M x y h n v 1 h -n z`. */
  path: string;
}

/** Error correction M (15 %): a link this long stays small, and a screen's glare is forgiven. */
export function drawQr(text: string): QrDrawing {
  const { size, data } = encode(text, { ecc: 'M', border: 4 });
  let path = '';
  for (let y = 0; y < size; y++) {
    const row = data[y] ?? [];
    for (let x = 0; x < size; x++) {
      if (!row[x]) continue;
      let run = 1;
      while (row[x + run]) run++;
      path += `M${x} ${y}h${run}v1h-${run}z`;
      x += run - 1;
    }
  }
  return { size, path };
}

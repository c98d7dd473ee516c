// The QR code the focus page draws scans back to the remote's link, code included: the drawing's
// path is rasterised here and read by an independent decoder.
import decodeQR from 'qr/decode.js';
import { describe, expect, it } from 'vitest';
import { companionLink } from './pairing.ts';
import { drawQr } from './qr-matrix.ts';

/** Paints the path's squares into an RGBA image, `scale` pixels per module. */
function rasterise(drawing: { size: number; path: string }, scale: number) {
  const width = drawing.size * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const [, x, y, run] of drawing.path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    for (let dx = 0; dx < Number(run); dx++) {
      for (let py = Number(y) * scale; py < (Number(y) + 1) * scale; py++) {
        for (let px = (Number(x) + dx) * scale; px < (Number(x) + dx + 1) * scale; px++) {
          const at = (py * width + px) * 4;
          data[at] = data[at + 1] = data[at + 2] = 0;
        }
      }
    }
  }
  return { width, height: width, data };
}

describe('the QR code of the remote’s link', () => {
  it.each([
    companionLink('http://192.168.1.20:3000', 'K7M2QD'),
    companionLink('http://10.0.0.7:41234', null),
    companionLink('http://studyhall-laptop.local:3000', 'ABCDEF'),
  ])('scans back to %s', (link) => {
    const drawing = drawQr(link);
    expect(drawing.path).toMatch(/^(M\d+ \d+h\d+v1h-\d+z)+$/);
    expect(decodeQR(rasterise(drawing, 6))).toBe(link);
  });

  it('keeps a quiet zone of four modules on every side', () => {
    const { size, path } = drawQr(companionLink('http://192.168.1.20:3000', 'K7M2QD'));
    for (const [, x, y, run] of path.matchAll(/M(\d+) (\d+)h(\d+)/g)) {
      expect(Number(x)).toBeGreaterThanOrEqual(4);
      expect(Number(y)).toBeGreaterThanOrEqual(4);
      expect(Number(x) + Number(run)).toBeLessThanOrEqual(size - 4);
      expect(Number(y)).toBeLessThan(size - 4);
    }
  });
});

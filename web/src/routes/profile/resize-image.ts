// A picked image, centre-cropped to a square and scaled to `size` pixels, as a data URL (WebP where
// the browser encodes it, else PNG). Small enough for the server's 2 MB avatar limit.
import { drawSquare } from '../../lib/square-image.ts';

export async function resizeToDataUrl(file: Blob, size: number): Promise<string> {
  const bitmap = await createImageBitmap(file);
  const canvas = drawSquare(bitmap, size);
  if (!canvas) throw new Error('no 2D canvas');
  const webp = canvas.toDataURL('image/webp', 0.86);
  return webp.startsWith('data:image/webp') ? webp : canvas.toDataURL('image/png');
}

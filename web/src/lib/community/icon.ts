// A group icon from a picked file: raster images only (the group-icons bucket takes PNG, JPEG,
// WebP and GIF up to 2 MiB), centre-cropped to a square and resized to 256 px in the browser, so
// what is uploaded is small whatever the student picked.
import { drawSquare } from '../square-image.ts';

export const ICON_SIZE = 256;
export const ICON_LIMIT_BYTES = 2 * 1024 * 1024;
export const ICON_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

export class IconError extends Error {}

export async function iconFromFile(file: File): Promise<Blob> {
  if (!(ICON_TYPES as readonly string[]).includes(file.type))
    throw new IconError('Choose a PNG, JPEG, WebP or GIF image.');
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new IconError('This image could not be read. Try another one.');
  }
  const canvas = drawSquare(bitmap, ICON_SIZE);
  if (!canvas) throw new IconError('This browser cannot resize images.');
  const encode = (type: string, quality?: number) =>
    new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, quality));
  const webp = await encode('image/webp', 0.86);
  const blob = webp?.type === 'image/webp' ? webp : await encode('image/png');
  if (!blob) throw new IconError('This image could not be converted.');
  if (blob.size > ICON_LIMIT_BYTES) throw new IconError('The resized image is still over 2 MB. Try a simpler picture.');
  return blob;
}

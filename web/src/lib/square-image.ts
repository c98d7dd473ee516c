// A picked image centre-cropped to a square and scaled to `size` pixels on a canvas: what the
// profile avatar and a group's icon both upload, so a large photo never leaves the browser.

/** The canvas holding the square, or null when the browser has no 2D canvas. Closes the bitmap. */
export function drawSquare(bitmap: ImageBitmap, size: number): HTMLCanvasElement | null {
  const side = Math.min(bitmap.width, bitmap.height);
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const context = canvas.getContext('2d');
  if (!context) {
    bitmap.close();
    return null;
  }
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, size, size);
  bitmap.close();
  return canvas;
}

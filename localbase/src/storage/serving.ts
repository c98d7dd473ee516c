// Headers on every object served. Stored bytes are whatever a user uploaded, and a public bucket is
// served from the app's own origin (through the gateway), so nothing served may run as a page:
// `nosniff` stops a browser from guessing a script type, the sandbox CSP keeps anything that is
// opened anyway without script or origin, and anything but a raster image is a download.
// storage-api's own rules stay: text/html is served as text/plain, and `?download[=name]` asks for
// an attachment.

/** Types a browser only ever draws as a picture (SVG is not one: it can carry script). */
export const RASTER_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

export const SANDBOX_CSP = "sandbox; default-src 'none'";

/** The media type without parameters, lower-cased: `Image/PNG; x=1` is `image/png`. */
export function essenceOf(mimetype: string): string {
  return (mimetype.split(';')[0] ?? '').trim().toLowerCase();
}

export function isRasterImage(mimetype: string | undefined): boolean {
  return mimetype !== undefined && RASTER_IMAGE_TYPES.has(essenceOf(mimetype));
}

function attachment(filename: string): string {
  const encoded = encodeURIComponent(filename);
  return `attachment; filename=${encoded}; filename*=UTF-8''${encoded}`;
}

export interface ServedObject {
  /** The stored content type (metadata.mimetype). */
  mimetype: string | undefined;
  /** The object's name in its bucket; its last segment names a download. */
  name: string;
  /** storage-api's `?download` query: '' for an attachment, or the file name to save as. */
  download: string | undefined;
}

export function servingHeaders(object: ServedObject): Record<string, string> {
  const stored = object.mimetype ?? 'application/octet-stream';
  const headers: Record<string, string> = {
    'content-type': stored.includes('text/html') ? 'text/plain' : stored,
    'x-content-type-options': 'nosniff',
    'content-security-policy': SANDBOX_CSP,
    'x-robots-tag': 'none',
  };
  if (object.download !== undefined) {
    headers['content-disposition'] = object.download === '' ? 'attachment;' : attachment(object.download);
  } else if (!isRasterImage(object.mimetype)) {
    headers['content-disposition'] = attachment(object.name.split('/').pop() || 'download');
  }
  return headers;
}

// Image transformations as storage-api's render routes offer them (it hands them to imgproxy;
// localbase runs them through sharp in-process): width and height (1 to 2000 px, clamped as
// storage-api clamps them), resize cover (default), contain or fill, quality 20-100 (default 80),
// and the output format: WebP when the client accepts it, else the source's own format;
// `format=origin` always keeps the source's. Inputs are bounded (size in bytes and pixels), and
// anything sharp cannot read as a raster image is refused with storage-api's 422-style error.
import type { Sharp } from 'sharp';
import { z } from 'zod';
import { StorageError } from './errors.ts';

/** storage-api's IMAGE_TRANSFORMATION_LIMIT_MIN_SIZE / MAX_SIZE defaults. */
export const TRANSFORM_MIN_SIZE = 1;
export const TRANSFORM_MAX_SIZE = 2000;
/** The largest source localbase transforms: the hosted image transformation limit (25 MB). */
export const TRANSFORM_MAX_INPUT_BYTES = 25 * 1000 * 1000;
/** The most source pixels decoded (imgproxy's default max_src_resolution is 50 megapixels). */
export const TRANSFORM_MAX_INPUT_PIXELS = 50_000_000;
export const DEFAULT_QUALITY = 80;

const integer = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^[0-9]+$/)
      .transform(Number),
  ])
  .pipe(z.number().int().min(0));

export const transformOptions = z.object({
  width: integer.optional(),
  height: integer.optional(),
  resize: z.enum(['cover', 'contain', 'fill']).optional(),
  quality: integer.pipe(z.number().min(20).max(100)).optional(),
  format: z.enum(['origin', 'avif', 'webp']).optional(),
});
export type TransformOptions = z.infer<typeof transformOptions>;

const clamp = (value: number) => Math.min(Math.max(value, TRANSFORM_MIN_SIZE), TRANSFORM_MAX_SIZE);

/** storage-api's applyTransformation: the canonical `key:value,...` text a signed URL carries. */
export function transformationText(options: TransformOptions): string {
  const segments: string[] = [];
  if (options.height) segments.push(`height:${clamp(options.height)}`);
  if (options.width) segments.push(`width:${clamp(options.width)}`);
  if (options.width || options.height) segments.push(`resize:${options.resize ?? 'cover'}`);
  if (options.quality) segments.push(`quality:${options.quality}`);
  if (options.format && options.format !== 'origin') segments.push(`format:${options.format}`);
  return segments.join(',');
}

/** imgproxy's names for the resize modes, as storage-api hands them over (cover is imgproxy's fill). */
const IMGPROXY_RESIZING_TYPE = { cover: 'fill', contain: 'fit', fill: 'force' } as const;

/**
 * What storage-api answers in a rendered image's `x-transformations` header: the segments it gave
 * imgproxy, where the resize mode is imgproxy's `resizing_type`.
 */
export function appliedTransformationText(options: TransformOptions): string {
  const segments: string[] = [];
  if (options.height) segments.push(`height:${clamp(options.height)}`);
  if (options.width) segments.push(`width:${clamp(options.width)}`);
  if (options.width || options.height) {
    segments.push(`resizing_type:${IMGPROXY_RESIZING_TYPE[options.resize ?? 'cover']}`);
  }
  if (options.quality) segments.push(`quality:${options.quality}`);
  if (options.format && options.format !== 'origin') segments.push(`format:${options.format}`);
  return segments.join(',');
}

/** The options back from a signed token's text (only the keys transformationText writes). */
export function parseTransformationText(text: string): TransformOptions {
  const raw: Record<string, string> = {};
  for (const part of text.split(',')) {
    const [key, value] = part.split(':');
    if (key && value !== undefined) raw[key] = value;
  }
  const parsed = transformOptions.safeParse(raw);
  return parsed.success ? parsed.data : {};
}

export const imageProcessingError = (message: string) =>
  new StorageError(422, 'InvalidRequest', 'InvalidRequest', message);

/** sharp (and libvips with it) is loaded on the first transform, not when localbase boots. */
const importSharp = () => import('sharp');
let loading: ReturnType<typeof importSharp> | undefined;
const loadSharp = async () => (await (loading ??= importSharp())).default;

export interface RenderedImage {
  body: Buffer;
  contentType: string;
}

const SHARP_OUTPUT: Record<string, 'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'tiff'> = {
  jpeg: 'jpeg',
  jpg: 'jpeg',
  png: 'png',
  webp: 'webp',
  gif: 'gif',
  avif: 'avif',
  heif: 'avif',
  tiff: 'tiff',
};

/** The output format: the one asked for, WebP for a client that accepts it, else the source's. */
export function outputFormat(options: TransformOptions, accept: string | undefined, source: string): string {
  if (options.format === 'origin') return source;
  if (options.format === 'webp' || options.format === 'avif') return options.format;
  if (accept && /\bimage\/webp\b/i.test(accept)) return 'webp';
  return source;
}

export async function renderImage(
  input: Buffer,
  options: TransformOptions,
  accept: string | undefined,
): Promise<RenderedImage> {
  if (input.length > TRANSFORM_MAX_INPUT_BYTES) {
    throw imageProcessingError(`The image is larger than ${TRANSFORM_MAX_INPUT_BYTES} bytes, the transformation limit`);
  }
  const sharp = await loadSharp();
  let image: Sharp;
  let source: string;
  try {
    image = sharp(input, { limitInputPixels: TRANSFORM_MAX_INPUT_PIXELS, failOn: 'error' });
    const metadata = await image.metadata();
    source = metadata.format ?? '';
  } catch (error) {
    throw imageProcessingError(`The object is not an image localbase can transform: ${(error as Error).message}`);
  }
  const target = SHARP_OUTPUT[outputFormat(options, accept, source)];
  if (!target || source === 'svg') {
    throw imageProcessingError(`The object is not an image localbase can transform (format ${source || 'unknown'})`);
  }
  const width = options.width ? clamp(options.width) : undefined;
  const height = options.height ? clamp(options.height) : undefined;
  if (width || height) {
    // imgproxy's resizing types as storage-api names them: cover crops (fill), contain fits inside
    // (fit), fill stretches (force); like imgproxy, never enlarging the source.
    const fit = { cover: 'cover', contain: 'inside', fill: 'fill' } as const;
    image = image.resize({ width, height, fit: fit[options.resize ?? 'cover'], withoutEnlargement: true });
  }
  image = image.rotate().toFormat(target, { quality: options.quality ?? DEFAULT_QUALITY });
  try {
    const body = await image.toBuffer();
    return { body, contentType: `image/${target}` };
  } catch (error) {
    throw imageProcessingError(`The image could not be transformed: ${(error as Error).message}`);
  }
}

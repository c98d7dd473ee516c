// Image transformations through supabase-js (getPublicUrl / download / createSignedUrl with
// `transform`), as storage-api's render routes answer them: size and resize mode, quality, WebP for
// a client that accepts it (never with format=origin), the signed transformations only, and clear
// refusals for what is not an image or is too large to decode.
import type { SupabaseClient } from '@supabase/supabase-js';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { TRANSFORM_MAX_INPUT_PIXELS } from '../../src/storage/transform.ts';
import { clientFor, signedUpClient } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let alice: { client: SupabaseClient; id: string };
let bob: { client: SupabaseClient; id: string };
let picture: Buffer;

const WEBP = { accept: 'image/webp,image/*' };

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
}

/** A picture that does not compress to nothing, so quality shows in its size. */
async function noise(width: number, height: number): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  })
    .png()
    .toBuffer();
}

async function sizeOf(response: Response): Promise<{ width?: number; height?: number; format?: string }> {
  const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
  return { width: metadata.width, height: metadata.height, format: metadata.format };
}

beforeAll(async () => {
  alice = await signedUpClient(localbase, 'render-alice');
  bob = await signedUpClient(localbase, 'render-bob');
  picture = await png(400, 300);
  const blob = (bytes: Buffer, type: string) => new Blob([new Uint8Array(bytes)], { type });
  for (const [bucket, name, body] of [
    ['avatars', `${alice.id}/face.png`, blob(picture, 'image/png')],
    ['avatars', `${alice.id}/noise.png`, blob(await noise(300, 200), 'image/png')],
    ['study-material', `${alice.id}/chart.png`, blob(picture, 'image/png')],
    ['study-material', `${alice.id}/notes.txt`, blob(Buffer.from('not a picture'), 'image/png')],
  ] as const) {
    expect((await alice.client.storage.from(bucket).upload(name, body)).error).toBeNull();
  }
});

describe('public render', () => {
  const url = (transform: Record<string, unknown>) =>
    clientFor(localbase).storage.from('avatars').getPublicUrl(`${alice.id}/face.png`, { transform }).data.publicUrl;

  it('resizes: cover crops to the box, contain fits inside it, fill stretches to it', async () => {
    const cover = await fetch(url({ width: 100, height: 100 }));
    expect(cover.status).toBe(200);
    expect(await sizeOf(cover)).toMatchObject({ width: 100, height: 100, format: 'png' });
    const contain = await fetch(url({ width: 100, height: 100, resize: 'contain' }));
    expect(await sizeOf(contain)).toMatchObject({ width: 100, height: 75 });
    const fill = await fetch(url({ width: 50, height: 200, resize: 'fill' }));
    expect(await sizeOf(fill)).toMatchObject({ width: 50, height: 200 });
    // storage-api answers the segments it gave imgproxy, whose resizing types these are.
    expect(cover.headers.get('x-transformations')).toBe('height:100,width:100,resizing_type:fill');
    expect(contain.headers.get('x-transformations')).toBe('height:100,width:100,resizing_type:fit');
    expect(fill.headers.get('x-transformations')).toBe('height:200,width:50,resizing_type:force');
  });

  it('answers WebP to a client that accepts it, unless format=origin; the source format otherwise', async () => {
    const webp = await fetch(url({ width: 80 }), { headers: WEBP });
    expect(webp.headers.get('content-type')).toBe('image/webp');
    expect(webp.headers.get('vary')).toMatch(/Accept/);
    expect(await sizeOf(webp)).toMatchObject({ width: 80, height: 60, format: 'webp' });
    const origin = await fetch(url({ width: 80, format: 'origin' }), { headers: WEBP });
    expect(origin.headers.get('content-type')).toBe('image/png');
    const plain = await fetch(url({ width: 80 }));
    expect(plain.headers.get('content-type')).toBe('image/png');
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('applies quality, and clamps sizes to 2000 px without enlarging', async () => {
    const noisy = (quality: number) =>
      clientFor(localbase)
        .storage.from('avatars')
        .getPublicUrl(`${alice.id}/noise.png`, { transform: { width: 300, quality } }).data.publicUrl;
    const high = await fetch(noisy(100), { headers: WEBP });
    const low = await fetch(noisy(20), { headers: WEBP });
    expect((await low.arrayBuffer()).byteLength).toBeLessThan((await high.arrayBuffer()).byteLength);
    const huge = await fetch(url({ width: 5000 }));
    expect(huge.headers.get('x-transformations')).toContain('width:2000');
    expect(await sizeOf(huge)).toMatchObject({ width: 400, height: 300 });
  });

  it('refuses a bad option, a private bucket and a missing object', async () => {
    const badQuality = await fetch(url({ width: 10, quality: 5 }));
    expect(badQuality.status).toBe(400);
    const badResize = await fetch(`${url({ width: 10 })}&resize=zoom`);
    expect(await badResize.json()).toMatchObject({ code: 'InvalidRequest' });
    const privateOne = await fetch(
      `${localbase.url}/storage/v1/render/image/public/study-material/${alice.id}/chart.png?width=10`,
    );
    expect(await privateOne.json()).toMatchObject({ message: 'Bucket not found' });
    const missing = await fetch(
      `${localbase.url}/storage/v1/render/image/public/avatars/${alice.id}/none.png?width=10`,
    );
    expect(await missing.json()).toMatchObject({ message: 'Object not found' });
  });
});

describe('authenticated render', () => {
  it('transforms what the caller may read, and nothing else', async () => {
    const { data, error } = await alice.client.storage
      .from('study-material')
      .download(`${alice.id}/chart.png`, { transform: { width: 40, height: 30 } });
    expect(error).toBeNull();
    const metadata = await sharp(Buffer.from(await data!.arrayBuffer())).metadata();
    expect([metadata.width, metadata.height]).toEqual([40, 30]);
    const denied = await bob.client.storage
      .from('study-material')
      .download(`${alice.id}/chart.png`, { transform: { width: 40 } });
    expect(denied.data).toBeNull();
    expect(denied.error).not.toBeNull();
    const keyless = await fetch(
      `${localbase.url}/storage/v1/render/image/authenticated/study-material/${alice.id}/chart.png?width=10`,
    );
    expect(keyless.status).toBe(401);
  });

  it('refuses an object that is not an image with a clear error', async () => {
    const session = (await alice.client.auth.getSession()).data.session!;
    const response = await fetch(
      `${localbase.url}/storage/v1/render/image/authenticated/study-material/${alice.id}/notes.txt?width=10`,
      { headers: { apikey: localbase.anonKey, authorization: `Bearer ${session.access_token}` } },
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as Record<string, string>;
    expect(body).toMatchObject({ statusCode: '422', code: 'InvalidRequest' });
    expect(body.message).toMatch(/not an image/);
  });

  it('refuses a source past the decoding limit', async () => {
    const side = Math.ceil(Math.sqrt(TRANSFORM_MAX_INPUT_PIXELS)) + 10;
    const huge = await png(side, side);
    const stored = await alice.client.storage
      .from('study-material')
      .upload(`${alice.id}/huge.png`, new Blob([new Uint8Array(huge)], { type: 'image/png' }));
    expect(stored.error).toBeNull();
    const { error } = await alice.client.storage
      .from('study-material')
      .download(`${alice.id}/huge.png`, { transform: { width: 10 } });
    expect(error).not.toBeNull();
    const session = (await alice.client.auth.getSession()).data.session!;
    const response = await fetch(
      `${localbase.url}/storage/v1/render/image/authenticated/study-material/${alice.id}/huge.png?width=10`,
      { headers: { apikey: localbase.anonKey, authorization: `Bearer ${session.access_token}` } },
    );
    expect(await response.json()).toMatchObject({ statusCode: '422' });
  });
});

describe('signed render', () => {
  it('serves the transformations the URL was signed with, whatever its query says', async () => {
    const { data, error } = await alice.client.storage
      .from('study-material')
      .createSignedUrl(`${alice.id}/chart.png`, 60, { transform: { width: 64, height: 64, resize: 'contain' } });
    expect(error).toBeNull();
    expect(data!.signedUrl).toContain('/storage/v1/render/image/sign/study-material/');
    const response = await fetch(data!.signedUrl);
    expect(response.status).toBe(200);
    expect(await sizeOf(response)).toMatchObject({ width: 64, height: 48 });
    expect(response.headers.get('x-transformations')).toBe('height:64,width:64,resizing_type:fit');
    const widened = await fetch(`${data!.signedUrl}&width=300&height=300`);
    expect(await sizeOf(widened)).toMatchObject({ width: 64, height: 48 });
  });

  it('refuses a signed render for another object', async () => {
    const { data } = await alice.client.storage
      .from('study-material')
      .createSignedUrl(`${alice.id}/chart.png`, 60, { transform: { width: 64 } });
    const other = data!.signedUrl.replace('chart.png', 'notes.txt');
    const response = await fetch(other);
    expect(await response.json()).toMatchObject({ code: 'InvalidSignature' });
  });
});

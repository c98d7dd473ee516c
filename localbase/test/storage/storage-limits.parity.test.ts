// Buckets' allowed_mime_types and file_size_limit, enforced as Supabase Storage enforces them
// (storage-api's validateMimeType, EntityTooLarge and InvalidMimeType), for uploads, upserts and
// updates alike, writing nothing on refusal; and the headers every served object carries, so that
// nothing stored can run as a page on the origin that serves it.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { UPLOAD_LIMIT_BYTES } from '../../src/storage/upload.ts';
import { clientFor, managementQuery } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

const RASTER = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
const PICTURE_LIMIT = 1024;

beforeAll(async () => {
  const buckets = await managementQuery(
    localbase,
    `insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types) values
       ('pictures', 'pictures', true, ${PICTURE_LIMIT}, array['${RASTER.join("','")}']),
       ('any-image', 'any-image', false, null, array['image/*']),
       ('anything', 'anything', true, null, null),
       ('documents', 'documents', false, 2048, array[]::text[])`,
  );
  expect(buckets.status).toBe(201);
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function upload(
  bucket: string,
  name: string,
  body: BodyInit,
  options: { contentType?: string; method?: 'POST' | 'PUT'; upsert?: boolean; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(`${localbase.url}/storage/v1/object/${bucket}/${name}`, {
    method: options.method ?? 'POST',
    headers: {
      apikey: localbase.serviceRoleKey,
      authorization: `Bearer ${localbase.serviceRoleKey}`,
      ...(options.contentType ? { 'content-type': options.contentType } : {}),
      ...(options.upsert ? { 'x-upsert': 'true' } : {}),
      ...options.headers,
    },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function multipart(bytes: Uint8Array, partType: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('', new Blob([new Uint8Array(bytes)], { type: partType }), 'file');
  return form;
}

async function objectCount(bucket: string): Promise<number> {
  const response = await managementQuery(
    localbase,
    `select count(*)::int as n from storage.objects where bucket_id = '${bucket}'`,
  );
  return ((await response.json()) as { n: number }[])[0]?.n ?? -1;
}

/** Files under DATA_DIR/storage for a bucket, and anything left in staging. */
async function filesOnDisk(bucket: string): Promise<{ stored: number; staging: number }> {
  const list = (dir: string) =>
    readdir(path.join(localbase.dataDir, 'storage', dir)).then(
      (names) => names.length,
      () => 0,
    );
  return { stored: await list(bucket), staging: await list('.staging') };
}

async function download(route: 'public' | 'authenticated', bucket: string, name: string, query = '') {
  const response = await fetch(`${localbase.url}/storage/v1/object/${route}/${bucket}/${name}${query}`, {
    headers:
      route === 'authenticated'
        ? { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}` }
        : {},
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

function invalidMimeType(type: string) {
  return {
    status: 400,
    body: {
      statusCode: '415',
      code: 'InvalidMimeType',
      error: 'invalid_mime_type',
      message: `mime type ${type} is not supported`,
    },
  };
}

function entityTooLarge() {
  return {
    status: 400,
    body: {
      statusCode: '413',
      code: 'EntityTooLarge',
      error: 'Payload too large',
      message: 'The object exceeded the maximum allowed size',
    },
  };
}

describe('allowed_mime_types', () => {
  it.each([
    'text/html',
    'image/svg+xml',
    'application/xhtml+xml',
    'text/plain',
    'IMAGE/PNG',
    'image/png; charset=utf-8',
  ])(
    'refuses %s in a raster-only bucket with InvalidMimeType (storage-api compares exactly), writing nothing',
    async (type) => {
      const answer = await upload('pictures', 'refused.bin', '<script>alert(1)</script>', { contentType: type });
      expect(answer).toEqual(invalidMimeType(type));
      expect(await objectCount('pictures')).toBe(0);
      expect(await filesOnDisk('pictures')).toEqual({ stored: 0, staging: 0 });
    },
  );

  it('refuses a content type without a subtype before reading anything, as Fastify does in storage-api', async () => {
    const answer = await upload('pictures', 'refused.bin', 'x', { contentType: 'image' });
    expect(answer).toEqual({
      status: 400,
      body: {
        statusCode: '415',
        code: 'InvalidMimeType',
        error: 'invalid_mime_type',
        message: 'Invalid Content-Type header',
      },
    });
    expect(await objectCount('pictures')).toBe(0);
  });

  it('takes each raster type the bucket allows', async () => {
    for (const type of RASTER) {
      const answer = await upload('pictures', `ok.${type.split('/')[1]}`, png, { contentType: type });
      expect(answer).toEqual({
        status: 200,
        body: { Id: expect.any(String), Key: `pictures/ok.${type.split('/')[1]}` },
      });
    }
    expect(await objectCount('pictures')).toBe(RASTER.length);
  });

  it("judges a multipart upload by its part's type, or by its contentType field", async () => {
    expect(await upload('pictures', 'form.html', multipart(png, 'text/html'))).toEqual(invalidMimeType('text/html'));
    expect(
      await upload('pictures', 'form.png', multipart(png, 'text/html', { contentType: 'image/png' })),
    ).toMatchObject({ status: 200 });
    expect(await upload('pictures', 'field.html', multipart(png, 'image/png', { contentType: 'text/html' }))).toEqual(
      invalidMimeType('text/html'),
    );
    expect(await objectCount('pictures')).toBe(RASTER.length + 1);
  });

  it('refuses the type on an upsert and on an update too, and keeps the object as it was', async () => {
    const before = await download('public', 'pictures', 'ok.png');
    expect(await upload('pictures', 'ok.png', '<html>', { contentType: 'text/html', upsert: true })).toEqual(
      invalidMimeType('text/html'),
    );
    expect(await upload('pictures', 'ok.png', '<html>', { contentType: 'text/html', method: 'PUT' })).toEqual(
      invalidMimeType('text/html'),
    );
    const after = await download('public', 'pictures', 'ok.png');
    expect(after.text).toBe(before.text);
    expect(after.headers.get('content-type')).toBe('image/png');
  });

  it('matches a wildcard such as image/* by its type', async () => {
    expect(await upload('any-image', 'photo.avif', png, { contentType: 'image/avif' })).toMatchObject({ status: 200 });
    expect(await upload('any-image', 'notes.txt', 'text', { contentType: 'text/plain' })).toEqual(
      invalidMimeType('text/plain'),
    );
  });

  it('takes any type where the bucket allows all (null or an empty list)', async () => {
    expect(await upload('anything', 'page.html', '<h1>hi</h1>', { contentType: 'text/html' })).toMatchObject({
      status: 200,
    });
    expect(await upload('documents', 'notes.txt', 'text', { contentType: 'text/plain' })).toMatchObject({
      status: 200,
    });
  });

  it("applies limits set through storage-js's createBucket", async () => {
    const admin = clientFor(localbase, localbase.serviceRoleKey);
    const created = await admin.storage.createBucket('from-client', {
      public: false,
      fileSizeLimit: '1KB',
      allowedMimeTypes: ['application/json'],
    });
    expect(created.error).toBeNull();
    expect((await admin.storage.getBucket('from-client')).data).toMatchObject({
      file_size_limit: 1000,
      allowed_mime_types: ['application/json'],
    });
    const refused = await admin.storage.from('from-client').upload('a.html', '<b>', { contentType: 'text/html' });
    expect(refused.error).toMatchObject({ statusCode: '415' });
    const tooBig = await admin.storage
      .from('from-client')
      .upload('a.json', JSON.stringify({ a: 'x'.repeat(1000) }), { contentType: 'application/json' });
    expect(tooBig.error).toMatchObject({ statusCode: '413' });
    expect(
      (await admin.storage.from('from-client').upload('b.json', '{}', { contentType: 'application/json' })).error,
    ).toBeNull();
  });
});

describe('file_size_limit', () => {
  it('takes exactly the limit and refuses one byte more, declared or streamed, as upload, upsert or update', async () => {
    expect(
      await upload('pictures', 'limit.png', new Uint8Array(PICTURE_LIMIT), { contentType: 'image/png' }),
    ).toMatchObject({ status: 200 });
    const count = await objectCount('pictures');
    const over = new Uint8Array(PICTURE_LIMIT + 1);
    expect(await upload('pictures', 'over.png', over, { contentType: 'image/png' })).toEqual(entityTooLarge());
    const streamed = new ReadableStream({
      start(controller) {
        controller.enqueue(over.subarray(0, 600));
        controller.enqueue(over.subarray(600));
        controller.close();
      },
    });
    expect(await upload('pictures', 'streamed.png', streamed, { contentType: 'image/png' })).toEqual(entityTooLarge());
    expect(await upload('pictures', 'form-over.png', multipart(over, 'image/png'))).toEqual(entityTooLarge());
    expect(await upload('pictures', 'limit.png', over, { contentType: 'image/png', upsert: true })).toEqual(
      entityTooLarge(),
    );
    expect(await upload('pictures', 'limit.png', over, { contentType: 'image/png', method: 'PUT' })).toEqual(
      entityTooLarge(),
    );
    expect(await objectCount('pictures')).toBe(count);
    expect((await download('public', 'pictures', 'limit.png')).text).toHaveLength(PICTURE_LIMIT);
    expect((await filesOnDisk('pictures')).staging).toBe(0);
  });

  it(`refuses more than the overall ${UPLOAD_LIMIT_BYTES} bytes in a bucket without a limit, answering on an intact connection`, async () => {
    const answer = await upload('anything', 'huge.bin', new Uint8Array(UPLOAD_LIMIT_BYTES + 1), {
      contentType: 'application/octet-stream',
    });
    expect(answer).toEqual(entityTooLarge());
    expect((await filesOnDisk('anything')).staging).toBe(0);
  }, 60_000);

  it('checks the type before the size, as storage-api does', async () => {
    expect(
      await upload('pictures', 'big.html', new Uint8Array(PICTURE_LIMIT + 1), { contentType: 'text/html' }),
    ).toEqual(invalidMimeType('text/html'));
  });
});

describe('headers of served objects', () => {
  it('serves a raster image inline, with nosniff and the sandbox CSP, on every download route', async () => {
    for (const route of ['public', 'authenticated'] as const) {
      const served = await download(route, 'pictures', 'ok.png');
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect(served.headers.get('content-disposition')).toBeNull();
    }
  });

  it('serves stored HTML as a text/plain attachment, never inline', async () => {
    for (const route of ['public', 'authenticated'] as const) {
      const served = await download(route, 'anything', 'page.html');
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('text/plain');
      expect(served.headers.get('content-disposition')).toBe(
        "attachment; filename=page.html; filename*=UTF-8''page.html",
      );
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    }
  });

  it('serves everything that is not a raster image (SVG, text, JSON, octet-stream) as an attachment', async () => {
    const uploads: [string, string][] = [
      ['drawing.svg', 'image/svg+xml'],
      ['notes.txt', 'text/plain'],
      ['data.json', 'application/json'],
      ['blob', 'application/octet-stream'],
      ['page.xhtml', 'application/xhtml+xml'],
    ];
    for (const [name, type] of uploads) {
      expect(await upload('anything', name, '<svg onload="alert(1)"/>', { contentType: type })).toMatchObject({
        status: 200,
      });
      const served = await download('public', 'anything', name);
      expect(served.headers.get('content-disposition'), type).toMatch(/^attachment; filename=/);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    }
  });

  it("honours storage-api's ?download, also for an image", async () => {
    expect((await download('public', 'pictures', 'ok.png', '?download')).headers.get('content-disposition')).toBe(
      'attachment;',
    );
    expect(
      (await download('public', 'pictures', 'ok.png', '?download=my%20photo.png')).headers.get('content-disposition'),
    ).toBe("attachment; filename=my%20photo.png; filename*=UTF-8''my%20photo.png");
  });
});

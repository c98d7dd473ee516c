// move, copy, info, exists and list-v2 through supabase-js, under the storage policies as
// storage-api checks them, and buckets named like storage-api's fixed route words (`sign`, `info`,
// `list-v2`, `public`, `upload`), which must work as buckets on every object route.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor, signedUpClient } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let alice: { client: SupabaseClient; id: string };
let bob: { client: SupabaseClient; id: string };
let service: SupabaseClient;

const text = (value: string) => new Blob([value], { type: 'text/plain' });
const statusCodeOf = (error: unknown) => (error as { statusCode?: string } | null)?.statusCode;

beforeAll(async () => {
  alice = await signedUpClient(localbase, 'objects-alice');
  bob = await signedUpClient(localbase, 'objects-bob');
  service = clientFor(localbase, localbase.serviceRoleKey);
});

async function put(client: SupabaseClient, bucket: string, path: string, body: string) {
  const { error } = await client.storage.from(bucket).upload(path, text(body));
  expect(error).toBeNull();
}

async function read(client: SupabaseClient, bucket: string, path: string): Promise<string | undefined> {
  const { data } = await client.storage.from(bucket).download(path);
  return data ? await data.text() : undefined;
}

describe('move', () => {
  it('renames an object in place and to another bucket, bytes and all', async () => {
    await put(alice.client, 'study-material', `${alice.id}/draft.txt`, 'draft');
    const moved = await alice.client.storage
      .from('study-material')
      .move(`${alice.id}/draft.txt`, `${alice.id}/final.txt`);
    expect(moved.error).toBeNull();
    expect(moved.data?.message).toBe('Successfully moved');
    expect(await read(alice.client, 'study-material', `${alice.id}/final.txt`)).toBe('final'.replace('final', 'draft'));
    expect(await read(alice.client, 'study-material', `${alice.id}/draft.txt`)).toBeUndefined();

    await put(service, 'study-material', `${alice.id}/pic.txt`, 'across');
    const across = await service.storage
      .from('study-material')
      .move(`${alice.id}/pic.txt`, `${alice.id}/pic.txt`, { destinationBucket: 'backups' });
    expect(across.error).toBeNull();
    expect(await read(service, 'backups', `${alice.id}/pic.txt`)).toBe('across');
    expect(await read(service, 'study-material', `${alice.id}/pic.txt`)).toBeUndefined();
  });

  it('refuses to move over an existing object, and leaves both as they were', async () => {
    await put(alice.client, 'study-material', `${alice.id}/one.txt`, 'one');
    await put(alice.client, 'study-material', `${alice.id}/two.txt`, 'two');
    const { error } = await alice.client.storage
      .from('study-material')
      .move(`${alice.id}/one.txt`, `${alice.id}/two.txt`);
    expect(error?.message).toBe('The resource already exists');
    expect(statusCodeOf(error)).toBe('409');
    expect(await read(alice.client, 'study-material', `${alice.id}/one.txt`)).toBe('one');
    expect(await read(alice.client, 'study-material', `${alice.id}/two.txt`)).toBe('two');
  });

  it("refuses what the policies refuse: someone else's object, or out of one's own folder", async () => {
    const theirs = await bob.client.storage.from('study-material').move(`${alice.id}/one.txt`, `${bob.id}/one.txt`);
    expect(theirs.error?.message).toBe('Object not found');
    const out = await alice.client.storage.from('study-material').move(`${alice.id}/one.txt`, `${bob.id}/one.txt`);
    expect(statusCodeOf(out.error)).toBe('403');
    expect(await read(alice.client, 'study-material', `${alice.id}/one.txt`)).toBe('one');
    const missing = await alice.client.storage.from('study-material').move(`${alice.id}/none.txt`, `${alice.id}/x.txt`);
    expect(missing.error?.message).toBe('Object not found');
  });
});

describe('copy', () => {
  it('copies bytes and metadata to a new name and to another bucket; the source stays', async () => {
    await put(alice.client, 'study-material', `${alice.id}/src.txt`, 'source');
    const copied = await alice.client.storage.from('study-material').copy(`${alice.id}/src.txt`, `${alice.id}/dup.txt`);
    expect(copied.error).toBeNull();
    expect(copied.data?.path).toBe(`study-material/${alice.id}/dup.txt`);
    expect(await read(alice.client, 'study-material', `${alice.id}/dup.txt`)).toBe('source');
    expect(await read(alice.client, 'study-material', `${alice.id}/src.txt`)).toBe('source');
    const across = await service.storage
      .from('study-material')
      .copy(`${alice.id}/src.txt`, `${alice.id}/copy.txt`, { destinationBucket: 'backups' });
    expect(across.error).toBeNull();
    expect(await read(service, 'backups', `${alice.id}/copy.txt`)).toBe('source');
  });

  it("refuses to copy over an existing object, from what one cannot read, or into someone else's folder", async () => {
    const over = await alice.client.storage.from('study-material').copy(`${alice.id}/src.txt`, `${alice.id}/dup.txt`);
    expect(over.error?.message).toBe('The resource already exists');
    const unreadable = await bob.client.storage.from('study-material').copy(`${alice.id}/src.txt`, `${bob.id}/x.txt`);
    expect(unreadable.error?.message).toBe('Object not found');
    const intoBob = await alice.client.storage.from('study-material').copy(`${alice.id}/src.txt`, `${bob.id}/x.txt`);
    expect(statusCodeOf(intoBob.error)).toBe('403');
    expect(await read(bob.client, 'study-material', `${bob.id}/x.txt`)).toBeUndefined();
    const noBucket = await service.storage
      .from('study-material')
      .copy(`${alice.id}/src.txt`, 'x.txt', { destinationBucket: 'no-such-bucket' });
    expect(noBucket.error?.message).toBe('Bucket not found');
  });
});

describe('info and exists', () => {
  it('describes an object the caller may read, and not one it may not', async () => {
    const { data, error } = await alice.client.storage.from('study-material').info(`${alice.id}/src.txt`);
    expect(error).toBeNull();
    expect(data).toMatchObject({
      name: `${alice.id}/src.txt`,
      bucketId: 'study-material',
      size: 6,
      contentType: 'text/plain',
      cacheControl: 'max-age=3600',
    });
    expect(data?.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(data?.metadata).toEqual({});
    const hidden = await bob.client.storage.from('study-material').info(`${alice.id}/src.txt`);
    expect(hidden.error?.message).toBe('Object not found');
  });

  it("keeps the uploader's metadata, from a form or from a raw body's x-metadata, until the object is replaced", async () => {
    const bucket = alice.client.storage.from('study-material');
    const metadata = { course: 'chemistry', page: 3, tags: ['exam'] };
    expect((await bucket.upload(`${alice.id}/form.txt`, text('form'), { metadata })).error).toBeNull();
    expect((await bucket.info(`${alice.id}/form.txt`)).data?.metadata).toEqual(metadata);
    const raw = new TextEncoder().encode('raw');
    const rawUpload = await bucket.upload(`${alice.id}/raw.txt`, raw, { contentType: 'text/plain', metadata });
    expect(rawUpload.error).toBeNull();
    expect((await bucket.info(`${alice.id}/raw.txt`)).data?.metadata).toEqual(metadata);
    // Replacing the object replaces its metadata, as storage-api does.
    expect((await bucket.update(`${alice.id}/raw.txt`, raw, { contentType: 'text/plain' })).error).toBeNull();
    expect((await bucket.info(`${alice.id}/raw.txt`)).data?.metadata).toEqual({});
  });

  it('refuses metadata that is not a JSON object, writing nothing', async () => {
    const refused = await fetch(`${localbase.url}/storage/v1/object/study-material/${alice.id}/bad-meta.txt`, {
      method: 'POST',
      headers: {
        apikey: localbase.serviceRoleKey,
        authorization: `Bearer ${localbase.serviceRoleKey}`,
        'content-type': 'text/plain',
        'x-metadata': Buffer.from('[1,2]').toString('base64'),
      },
      body: 'x',
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ statusCode: '400', code: 'InvalidRequest' });
    expect((await alice.client.storage.from('study-material').exists(`${alice.id}/bad-meta.txt`)).data).toBe(false);
  });

  it('answers exists with HEAD: true for a readable object, false for a missing or hidden one', async () => {
    expect((await alice.client.storage.from('study-material').exists(`${alice.id}/src.txt`)).data).toBe(true);
    expect((await alice.client.storage.from('study-material').exists(`${alice.id}/none.txt`)).data).toBe(false);
    expect((await bob.client.storage.from('study-material').exists(`${alice.id}/src.txt`)).data).toBe(false);
    const head = await fetch(`${localbase.url}/storage/v1/object/study-material/${alice.id}/src.txt`, {
      method: 'HEAD',
      headers: { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('6');
    expect(head.headers.get('etag')).toMatch(/^"/);
  });
});

describe('list-v2', () => {
  beforeAll(async () => {
    for (const name of ['a.txt', 'b/1.txt', 'b/2.txt', 'c.txt', 'd/e/f.txt', 'g.txt']) {
      await put(service, 'study-material', `${bob.id}/tree/${name}`, name);
    }
  });

  it('pages through every object with a cursor', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const { data, error } = await bob.client.storage
        .from('study-material')
        .listV2({ prefix: `${bob.id}/tree/`, limit: 2, cursor });
      expect(error).toBeNull();
      names.push(...data!.objects.map((object) => object.name));
      pages += 1;
      if (!data!.hasNext) break;
      cursor = data!.nextCursor;
    }
    expect(pages).toBe(3);
    expect(names.map((name) => name.slice(`${bob.id}/tree/`.length))).toEqual([
      'a.txt',
      'b/1.txt',
      'b/2.txt',
      'c.txt',
      'd/e/f.txt',
      'g.txt',
    ]);
  });

  it('lists folders once with with_delimiter, across pages', async () => {
    const prefix = `${bob.id}/tree/`;
    const first = await bob.client.storage.from('study-material').listV2({ prefix, limit: 3, with_delimiter: true });
    expect(first.data?.objects.map((object) => object.name)).toEqual([`${prefix}a.txt`, `${prefix}c.txt`]);
    expect(first.data?.folders.map((folder) => folder.name)).toEqual([`${prefix}b/`]);
    expect(first.data?.hasNext).toBe(true);
    const second = await bob.client.storage
      .from('study-material')
      .listV2({ prefix, limit: 3, with_delimiter: true, cursor: first.data!.nextCursor });
    expect(second.data?.folders.map((folder) => folder.name)).toEqual([`${prefix}d/`]);
    expect(second.data?.objects.map((object) => object.name)).toEqual([`${prefix}g.txt`]);
    expect(second.data?.hasNext).toBe(false);
  });

  it('lists only what the caller may read, and refuses a cursor it did not issue', async () => {
    const peek = await alice.client.storage.from('study-material').listV2({ prefix: `${bob.id}/` });
    expect(peek.data?.objects).toEqual([]);
    const bad = await bob.client.storage.from('study-material').listV2({ cursor: 'bm90IGEgY3Vyc29y' });
    expect(bad.error?.message).toMatch(/continuation token/);
  });
});

describe('buckets named like the fixed route words', () => {
  const words = ['sign', 'info', 'list-v2', 'public', 'upload', 'authenticated', 'list'];

  beforeAll(async () => {
    for (const word of words) {
      const { error } = await service.storage.createBucket(word, { public: false });
      expect(error).toBeNull();
    }
  });

  it.each(words)('bucket %s works on every object route', async (word) => {
    const bucket = service.storage.from(word);
    // One segment and nested names: `/object/<word>/<name>` must not be read as the fixed route.
    for (const name of ['top.txt', 'notes/deep.txt', 'sign/x.txt']) {
      expect((await bucket.upload(name, text(`${word}:${name}`))).error).toBeNull();
      expect(await read(service, word, name)).toBe(`${word}:${name}`);
      expect((await bucket.update(name, text(`${word}:${name}!`))).error).toBeNull();
      expect(await read(service, word, name)).toBe(`${word}:${name}!`);
      expect((await bucket.upload(name, text('up'), { upsert: true })).error).toBeNull();
      expect((await bucket.exists(name)).data).toBe(true);
      const info = await bucket.info(name);
      expect(info.data?.name).toBe(name);
      const signed = await bucket.createSignedUrl(name, 60);
      expect(signed.error).toBeNull();
      expect(await (await fetch(signed.data!.signedUrl)).text()).toBe('up');
    }
    const many = await bucket.createSignedUrls(['top.txt', 'notes/deep.txt'], 60);
    expect(many.data?.map((entry) => entry.error)).toEqual([null, null]);
    const upload = await bucket.createSignedUploadUrl('signed.txt');
    expect(upload.error).toBeNull();
    expect((await bucket.uploadToSignedUrl('signed.txt', upload.data!.token, text('signed'))).error).toBeNull();
    expect(await read(service, word, 'signed.txt')).toBe('signed');
    const listed = await bucket.list('notes');
    expect(listed.data?.map((entry) => entry.name)).toEqual(['deep.txt']);
    const v2 = await bucket.listV2({ with_delimiter: true });
    expect(v2.data?.folders.map((folder) => folder.name)).toEqual(['notes/', 'sign/']);
    expect((await bucket.move('top.txt', 'moved.txt')).error).toBeNull();
    expect((await bucket.copy('moved.txt', 'copied.txt')).error).toBeNull();
    expect(await read(service, word, 'copied.txt')).toBe('up');
    const removed = await bucket.remove(['moved.txt', 'copied.txt', 'notes/deep.txt', 'sign/x.txt', 'signed.txt']);
    expect(removed.data).toHaveLength(5);
  });

  it('keeps the fixed routes for other buckets while those buckets exist', async () => {
    await put(alice.client, 'study-material', `${alice.id}/still.txt`, 'still');
    const signed = await alice.client.storage.from('study-material').createSignedUrl(`${alice.id}/still.txt`, 60);
    expect(await (await fetch(signed.data!.signedUrl)).text()).toBe('still');
    const info = await alice.client.storage.from('study-material').info(`${alice.id}/still.txt`);
    expect(info.data?.size).toBe(5);
    // An object of a private bucket named `public` is not public, whichever way it is asked for.
    await put(service, 'public', 'secret.txt', 'secret');
    const fixed = await fetch(`${localbase.url}/storage/v1/object/public/public/secret.txt`);
    expect(await fixed.json()).toMatchObject({ statusCode: '404', message: 'Bucket not found' });
    const generic = await fetch(`${localbase.url}/storage/v1/object/public/secret.txt`);
    expect(generic.status).toBe(401);
    const withKey = await fetch(`${localbase.url}/storage/v1/object/public/secret.txt`, {
      headers: { apikey: localbase.anonKey },
    });
    expect(await withKey.json()).toMatchObject({ message: 'Object not found' });
  });
});

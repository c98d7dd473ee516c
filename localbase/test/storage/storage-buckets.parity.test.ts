// updateBucket, emptyBucket and deleteBucket through supabase-js, as storage-api answers them:
// bucket writes under the caller's role (this project's policies let only the service role write
// buckets), emptying under the caller's delete policy (all she can see, or nothing), and no deleting
// a bucket that still holds objects.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor, signedUpClient } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let service: SupabaseClient;
let user: { client: SupabaseClient; id: string };
let other: { client: SupabaseClient; id: string };

const statusCodeOf = (error: unknown) => (error as { statusCode?: string } | null)?.statusCode;
const text = (value: string, type = 'text/plain') => new Blob([value], { type });

async function storedFiles(bucket: string): Promise<number> {
  return readdir(path.join(localbase.dataDir, 'storage', bucket)).then(
    (names) => names.length,
    () => 0,
  );
}

beforeAll(async () => {
  service = clientFor(localbase, localbase.serviceRoleKey);
  user = await signedUpClient(localbase, 'buckets-user');
  other = await signedUpClient(localbase, 'buckets-other');
  expect((await service.storage.createBucket('scratch', { public: false })).error).toBeNull();
});

describe('updateBucket', () => {
  it('changes public, the size limit and the allowed types, and uploads obey them', async () => {
    const { data, error } = await service.storage.updateBucket('scratch', {
      public: true,
      fileSizeLimit: '1KB',
      allowedMimeTypes: ['text/plain', ''],
    });
    expect(error).toBeNull();
    expect(data?.message).toBe('Successfully updated');
    const bucket = await service.storage.getBucket('scratch');
    expect(bucket.data).toMatchObject({ public: true, file_size_limit: 1000, allowed_mime_types: ['text/plain'] });
    const tooBig = await service.storage.from('scratch').upload('big.txt', text('x'.repeat(1001)));
    expect(statusCodeOf(tooBig.error)).toBe('413');
    const wrongType = await service.storage.from('scratch').upload('a.png', text('x', 'image/png'));
    expect(statusCodeOf(wrongType.error)).toBe('415');
    expect((await service.storage.from('scratch').upload('ok.txt', text('ok'))).error).toBeNull();
    const open = await fetch(service.storage.from('scratch').getPublicUrl('ok.txt').data.publicUrl);
    expect(await open.text()).toBe('ok');

    const back = await service.storage.updateBucket('scratch', {
      public: false,
      fileSizeLimit: null,
      allowedMimeTypes: null,
    });
    expect(back.error).toBeNull();
    expect((await service.storage.getBucket('scratch')).data).toMatchObject({
      public: false,
      file_size_limit: null,
      allowed_mime_types: null,
    });
  });

  it('is refused to a user (no policy lets her write buckets) and for a missing bucket, changing nothing', async () => {
    const { error } = await user.client.storage.updateBucket('scratch', { public: true });
    expect(error?.message).toBe('Bucket not found');
    expect(statusCodeOf(error)).toBe('404');
    expect((await service.storage.getBucket('scratch')).data?.public).toBe(false);
    const missing = await service.storage.updateBucket('no-such-bucket', { public: true });
    expect(missing.error?.message).toBe('Bucket not found');
  });
});

describe('deleteBucket and emptyBucket', () => {
  beforeAll(async () => {
    for (const name of ['a.txt', 'folder/b.txt', 'folder/deep/c.txt']) {
      expect((await service.storage.from('scratch').upload(name, text(name))).error).toBeNull();
    }
  });

  it('refuses to delete a bucket that holds objects, with storage-api error', async () => {
    const { error } = await service.storage.deleteBucket('scratch');
    expect(error?.message).toBe('The bucket you tried to delete is not empty');
    expect(statusCodeOf(error)).toBe('409');
    expect((await service.storage.getBucket('scratch')).data?.id).toBe('scratch');
  });

  it("empties under the caller's policies: a user deletes nothing she cannot see", async () => {
    // No policy shows her the objects of "scratch": emptying it succeeds and removes none of them.
    const { data, error } = await user.client.storage.emptyBucket('scratch');
    expect(error).toBeNull();
    expect(data?.message).toBe('Successfully emptied');
    expect((await service.storage.from('scratch').list('folder')).data).toHaveLength(2);

    const missing = await user.client.storage.emptyBucket('no-such-bucket');
    expect(missing.error?.message).toBe('Bucket not found');
    expect(statusCodeOf(missing.error)).toBe('404');
  });

  it('refuses, deleting nothing, when the caller sees objects she may not delete', async () => {
    const png = new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' });
    expect((await user.client.storage.from('avatars').upload(`${user.id}/me.png`, png)).error).toBeNull();
    expect((await other.client.storage.from('avatars').upload(`${other.id}/me.png`, png)).error).toBeNull();
    // Everyone reads avatars, each deletes only her own: emptying the bucket is all or nothing.
    const refused = await user.client.storage.emptyBucket('avatars');
    expect(refused.error?.message).toBe('Access denied: the bucket holds objects you may not delete');
    expect(statusCodeOf(refused.error)).toBe('403');
    for (const owner of [user.id, other.id]) {
      expect((await service.storage.from('avatars').list(owner)).data?.map((entry) => entry.name)).toEqual(['me.png']);
    }
  });

  it('empties a whole bucket for the service role, bytes included', async () => {
    expect(await storedFiles('scratch')).toBeGreaterThan(0);
    const { data, error } = await service.storage.emptyBucket('scratch');
    expect(error).toBeNull();
    expect(data?.message).toBe('Successfully emptied');
    expect((await service.storage.from('scratch').list()).data).toEqual([]);
    expect(await storedFiles('scratch')).toBe(0);
  });

  it('deletes an empty bucket for the service role, not for a user', async () => {
    const refused = await user.client.storage.deleteBucket('scratch');
    expect(refused.error?.message).toBe('Bucket not found');
    expect((await service.storage.getBucket('scratch')).data?.id).toBe('scratch');
    const { data, error } = await service.storage.deleteBucket('scratch');
    expect(error).toBeNull();
    expect(data?.message).toBe('Successfully deleted');
    expect((await service.storage.getBucket('scratch')).error?.message).toBe('Bucket not found');
    const again = await service.storage.deleteBucket('scratch');
    expect(again.error?.message).toBe('Bucket not found');
  });

  it("keeps the project's buckets: emptying one removes only the caller's own files, and none is deleted", async () => {
    await user.client.storage.from('study-material').upload(`${user.id}/mine.txt`, text('mine'));
    await other.client.storage.from('study-material').upload(`${other.id}/keep.txt`, text('keep'));
    expect((await user.client.storage.emptyBucket('study-material')).error).toBeNull();
    expect((await user.client.storage.from('study-material').list(user.id)).data).toEqual([]);
    expect((await user.client.storage.deleteBucket('study-material')).error?.message).toBe(
      'The bucket you tried to delete is not empty',
    );
    expect((await other.client.storage.from('study-material').list(other.id)).data?.map((entry) => entry.name)).toEqual(
      ['keep.txt'],
    );
  });
});

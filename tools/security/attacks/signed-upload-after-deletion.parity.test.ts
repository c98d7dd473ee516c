// attack: keep writing as a student after her account is gone. A signed upload URL carries its
// signer as the object's owner and stays valid for two hours. She signs two (study material and
// an avatar), deletes her account (nothing of hers is stored yet, so the deletion goes through),
// then whoever holds the URLs uploads: each PUT used to answer 200 and leave an object whose owner
// is her id, the avatar served to anyone from the public bucket. The same with a signer who was
// banned since. A signed upload now writes only while its signer is an account that may write, in
// localbase and in the database (a trigger on storage.objects, for any writer).
import { describe, expect, it } from 'vitest';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

interface SignedUpload {
  bucket: string;
  name: string;
  token: string;
}

/** createSignedUploadUrl through the gateway, with her own token. */
async function signUpload(student: Student, bucket: string, file: string): Promise<SignedUpload> {
  const name = `${student.id}/${file}`;
  const signed = await stack.backend(student, 'POST', `/storage/v1/object/upload/sign/${bucket}/${name}`, {});
  expect(signed.statusCode, signed.body).toBe(200);
  return { bucket, name, token: signed.json().token as string };
}

/** uploadToSignedUrl as anyone holding the URL sends it: the anon key, no session. */
function useSignedUpload(upload: SignedUpload, body: Buffer, contentType: string) {
  return stack.gateway.app.inject({
    method: 'PUT',
    url: `/__backend/storage/v1/object/upload/sign/${upload.bucket}/${upload.name}?token=${upload.token}`,
    headers: { apikey: stack.localbase.anonKey, 'content-type': contentType },
    payload: body,
  });
}

async function objectsOwnedBy(userId: string): Promise<unknown[]> {
  return stack.owner(`select bucket_id, name from storage.objects where owner = $1 or owner_id = $2`, [userId, userId]);
}

async function deleteOwnAccount(student: Student): Promise<void> {
  const [profile] = await stack.owner<{ handle: string | null }>(
    `select handle from public.user_profiles where user_id = $1`,
    [student.id],
  );
  const deleted = await stack.backend(student, 'POST', '/rest/v1/rpc/delete_my_account', {
    p_confirm: profile?.handle ?? 'delete',
  });
  expect(deleted.statusCode, deleted.body).toBe(200);
}

/** Storage's refusal: its own error body, HTTP 400 carrying the logical 403 (storage-api's legacy shape). */
function expectSignerRefused(response: { statusCode: number; body: string; json(): unknown }) {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.json()).toEqual({
    statusCode: '403',
    code: 'AccessDenied',
    error: 'Unauthorized',
    message: expect.stringMatching(/no longer/),
  });
}

describe('a signed upload URL outliving its signer', () => {
  it('writes for a signer who is still a member in good standing', async () => {
    const keeper = await stack.signUp('signed_keeper');
    const upload = await signUpload(keeper, 'study-material', 'kept.pdf');
    const used = await useSignedUpload(upload, Buffer.from('%PDF-1.4 kept'), 'application/pdf');
    expect(used.statusCode, used.body).toBe(200);
    expect(await objectsOwnedBy(keeper.id)).toEqual([{ bucket_id: 'study-material', name: upload.name }]);
  });

  it('writes nothing once she deleted her account, in either bucket, and no avatar of hers is served', async () => {
    const leaver = await stack.signUp('signed_leaver');
    const material = await signUpload(leaver, 'study-material', 'late.pdf');
    const avatar = await signUpload(leaver, 'avatars', 'face.png');
    await deleteOwnAccount(leaver);

    expectSignerRefused(await useSignedUpload(material, Buffer.from('%PDF-1.4 late'), 'application/pdf'));
    expectSignerRefused(await useSignedUpload(avatar, PNG, 'image/png'));

    expect(await objectsOwnedBy(leaver.id)).toEqual([]);
    const served = await stack.gateway.app.inject({
      method: 'GET',
      url: `/__backend/storage/v1/object/public/avatars/${avatar.name}`,
    });
    expect(served.statusCode).not.toBe(200);
    expect(served.body).not.toContain('PNG');
  });

  it('writes nothing for a signer banned since, and again once the ban is lifted', async () => {
    const banned = await stack.signUp('signed_banned');
    const upload = await signUpload(banned, 'study-material', 'while-banned.pdf');
    const service = {
      apikey: stack.localbase.serviceRoleKey,
      authorization: `Bearer ${stack.localbase.serviceRoleKey}`,
      'content-type': 'application/json',
    };
    const ban = (duration: string) =>
      fetch(`${stack.localbase.url}/auth/v1/admin/users/${banned.id}`, {
        method: 'PUT',
        headers: service,
        body: JSON.stringify({ ban_duration: duration }),
      });
    expect((await ban('24h')).status).toBe(200);

    expectSignerRefused(await useSignedUpload(upload, Buffer.from('%PDF-1.4 banned'), 'application/pdf'));
    expect(await objectsOwnedBy(banned.id)).toEqual([]);

    expect((await ban('none')).status).toBe(200);
    const afterBan = await useSignedUpload(upload, Buffer.from('%PDF-1.4 unbanned'), 'application/pdf');
    expect(afterBan.statusCode, afterBan.body).toBe(200);
  });

  it('is refused by the database too: no writer may store an object for an account that is gone', async () => {
    const gone = await stack.signUp('signed_gone_sql');
    await deleteOwnAccount(gone);
    // What a storage server that checks nothing itself (storage-api, writing with its own rights)
    // would write, sent as the database owner through the management API's SQL.
    const response = await fetch(`${stack.localbase.url}/v1/projects/local/database/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.localbase.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `insert into storage.objects (bucket_id, name, owner, owner_id, metadata) values ('avatars', $1, $2, $3, '{}')`,
        parameters: [`${gone.id}/face.png`, gone.id, gone.id],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'storage_owner_inactive' });
    expect(await objectsOwnedBy(gone.id)).toEqual([]);
  });
});

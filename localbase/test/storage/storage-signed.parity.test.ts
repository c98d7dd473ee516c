// Signed URLs through supabase-js's storage client, as storage-api serves them: createSignedUrl(s)
// opens one object without a key until it expires (with `download`), createSignedUploadUrl lets
// anyone holding the token upload that one object for its signer. Signing needs the policies to let
// the caller read (or insert) the object; wrong, foreign, tampered, expired and mis-scoped tokens
// are refused with storage-api's errors, and an upload URL whose signer was banned or deleted since
// writes nothing.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { signJwt } from '../../src/jwt.ts';
import { clientFor, signedUpClient } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let alice: { client: SupabaseClient; id: string };
let bob: { client: SupabaseClient; id: string };
let anon: SupabaseClient;
const NOTES = 'the notes of alice';

beforeAll(async () => {
  alice = await signedUpClient(localbase, 'signed-alice');
  bob = await signedUpClient(localbase, 'signed-bob');
  anon = clientFor(localbase);
  const uploaded = await alice.client.storage
    .from('study-material')
    .upload(`${alice.id}/notes.txt`, NOTES, { contentType: 'text/plain' });
  expect(uploaded.error).toBeNull();
});

async function errorBody(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

/** The signed URL's token, swapped into another URL or altered. */
function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token') ?? '';
}

describe('createSignedUrl', () => {
  it('opens the object without any key, until it expires', async () => {
    const { data, error } = await alice.client.storage
      .from('study-material')
      .createSignedUrl(`${alice.id}/notes.txt`, 60);
    expect(error).toBeNull();
    expect(data?.signedUrl).toContain(`/storage/v1/object/sign/study-material/${alice.id}/notes.txt?token=`);
    const response = await fetch(data!.signedUrl);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(NOTES);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('asks for an attachment with the download option (a name, or the object name)', async () => {
    const named = await alice.client.storage
      .from('study-material')
      .createSignedUrl(`${alice.id}/notes.txt`, 60, { download: 'mine.txt' });
    const response = await fetch(named.data!.signedUrl);
    expect(response.headers.get('content-disposition')).toContain('filename=mine.txt');
    const plain = await alice.client.storage
      .from('study-material')
      .createSignedUrl(`${alice.id}/notes.txt`, 60, { download: true });
    const attachment = await fetch(plain.data!.signedUrl);
    expect(attachment.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(await attachment.text()).toBe(NOTES);
  });

  it('refuses to sign for a caller whose policies hide the object, as storage-api (not found)', async () => {
    for (const client of [bob.client, anon]) {
      const { data, error } = await client.storage.from('study-material').createSignedUrl(`${alice.id}/notes.txt`, 60);
      expect(data).toBeNull();
      expect(error?.message).toBe('Object not found');
      expect((error as unknown as { statusCode: string }).statusCode).toBe('404');
    }
  });

  it('refuses to sign a missing object, an expiry out of range, and without the API key', async () => {
    const missing = await alice.client.storage.from('study-material').createSignedUrl(`${alice.id}/none.txt`, 60);
    expect(missing.error?.message).toBe('Object not found');
    const never = await alice.client.storage.from('study-material').createSignedUrl(`${alice.id}/notes.txt`, 0);
    expect(never.error?.message).toMatch(/expiresIn/);
    const session = (await alice.client.auth.getSession()).data.session!;
    const keyless = await fetch(`${localbase.url}/storage/v1/object/sign/study-material/${alice.id}/notes.txt`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ expiresIn: 60 }),
    });
    expect(keyless.status).toBe(401);
    expect(await keyless.json()).toMatchObject({ message: 'No API key found in request' });
  });

  it('refuses a token for another object, a tampered one, one signed with another secret, and none', async () => {
    const { data } = await alice.client.storage.from('study-material').createSignedUrl(`${alice.id}/notes.txt`, 60);
    const token = tokenOf(data!.signedUrl);
    const base = `${localbase.url}/storage/v1/object/sign/study-material`;

    const elsewhere = await fetch(`${base}/${alice.id}/other.txt?token=${token}`);
    expect(elsewhere.status).toBe(400);
    expect(await errorBody(elsewhere)).toMatchObject({ statusCode: '400', code: 'InvalidSignature' });

    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ url: `study-material/${bob.id}/x`, scope: 'download', exp: 9e9 }),
    ).toString('base64url');
    const tampered = await fetch(`${base}/${bob.id}/x?token=${header}.${forged}.${signature}`);
    expect(await errorBody(tampered)).toMatchObject({ statusCode: '403', code: 'InvalidJWT' });

    const foreign = await signJwt(
      { url: `study-material/${alice.id}/notes.txt`, scope: 'download', exp: Math.floor(Date.now() / 1000) + 60 },
      'another project secret that is long enough',
    );
    const other = await fetch(`${base}/${alice.id}/notes.txt?token=${foreign}`);
    expect(await errorBody(other)).toMatchObject({ code: 'InvalidJWT' });

    const none = await fetch(`${base}/${alice.id}/notes.txt`);
    expect(none.status).toBe(400);
    expect(payload).toBeTruthy();
  });

  it('refuses an expired token: past the clock skew as an invalid JWT, within it as ExpiredToken', async () => {
    const path = `study-material/${alice.id}/notes.txt`;
    const now = Math.floor(Date.now() / 1000);
    const old = await signJwt({ url: path, scope: 'download', iat: now - 120, exp: now - 60 }, localbase.jwtSecret);
    const stale = await fetch(`${localbase.url}/storage/v1/object/sign/${path}?token=${old}`);
    expect(stale.status).toBe(400);
    expect(await errorBody(stale)).toMatchObject({ statusCode: '403', code: 'InvalidJWT', message: 'jwt expired' });

    // A URL signed for one second, as createSignedUrl(…, 1) signs it, whose second ended two ago.
    const { data } = await alice.client.storage.from('study-material').createSignedUrl(`${alice.id}/notes.txt`, 1);
    const signed = new URL(data!.signedUrl);
    const lapsed = await signJwt({ url: path, scope: 'download', iat: now - 3, exp: now - 2 }, localbase.jwtSecret);
    signed.searchParams.set('token', lapsed);
    const late = await fetch(signed);
    expect(late.status).toBe(400);
    expect(await errorBody(late)).toMatchObject({
      statusCode: '400',
      code: 'ExpiredToken',
      message: 'The provided token has expired.',
    });
  });

  it('takes no other token for a signed URL: neither an access token nor an upload token', async () => {
    const session = (await alice.client.auth.getSession()).data.session!;
    const path = `${localbase.url}/storage/v1/object/sign/study-material/${alice.id}/notes.txt`;
    const access = await fetch(`${path}?token=${session.access_token}`);
    expect(await errorBody(access)).toMatchObject({ code: 'InvalidSignature' });
    const upload = await alice.client.storage
      .from('study-material')
      .createSignedUploadUrl(`${alice.id}/notes.txt`, { upsert: true });
    const asDownload = await fetch(`${path}?token=${upload.data!.token}`);
    expect(await errorBody(asDownload)).toMatchObject({
      code: 'InvalidSignature',
      message: 'Token is not scoped for download',
    });
  });
});

describe('createSignedUrls', () => {
  it('signs what the caller may read and says which paths it could not sign', async () => {
    await bob.client.storage.from('study-material').upload(`${bob.id}/b.txt`, 'bob', { contentType: 'text/plain' });
    const { data, error } = await alice.client.storage
      .from('study-material')
      .createSignedUrls([`${alice.id}/notes.txt`, `${alice.id}/none.txt`, `${bob.id}/b.txt`], 60);
    expect(error).toBeNull();
    expect(data).toHaveLength(3);
    expect(data![0]).toMatchObject({ error: null, path: `${alice.id}/notes.txt` });
    expect(await (await fetch(data![0]!.signedUrl!)).text()).toBe(NOTES);
    const refusal = 'Either the object does not exist or you do not have access to it';
    expect(data![1]).toMatchObject({ error: refusal, signedUrl: null });
    expect(data![2]).toMatchObject({ error: refusal, signedUrl: null });
  });
});

describe('createSignedUploadUrl and uploadToSignedUrl', () => {
  it('lets anyone with the token upload that one object, owned by the signer', async () => {
    const path = `${alice.id}/handed-in.txt`;
    const signed = await alice.client.storage.from('study-material').createSignedUploadUrl(path);
    expect(signed.error).toBeNull();
    const uploaded = await anon.storage
      .from('study-material')
      .uploadToSignedUrl(path, signed.data!.token, 'from a classmate', { contentType: 'text/plain' });
    expect(uploaded.error).toBeNull();
    expect(uploaded.data?.fullPath).toBe(`study-material/${path}`);
    const read = await alice.client.storage.from('study-material').download(path);
    expect(await read.data?.text()).toBe('from a classmate');
    const info = await alice.client.storage.from('study-material').list(alice.id);
    expect(info.data?.map((entry) => entry.name)).toContain('handed-in.txt');

    const again = await anon.storage
      .from('study-material')
      .uploadToSignedUrl(path, signed.data!.token, 'twice', { contentType: 'text/plain' });
    expect(again.error?.message).toBe('The resource already exists');

    const elsewhere = await anon.storage
      .from('study-material')
      .uploadToSignedUrl(`${alice.id}/elsewhere.txt`, signed.data!.token, 'x', { contentType: 'text/plain' });
    expect((elsewhere.error as unknown as { statusCode: string }).statusCode).toBe('400');
    expect(elsewhere.error?.message).toBe('Invalid signature');
  });

  it('replaces the object with a token signed with upsert', async () => {
    const path = `${alice.id}/handed-in.txt`;
    const signed = await alice.client.storage.from('study-material').createSignedUploadUrl(path, { upsert: true });
    expect(signed.error).toBeNull();
    const uploaded = await anon.storage
      .from('study-material')
      .uploadToSignedUrl(path, signed.data!.token, 'replaced', { contentType: 'text/plain' });
    expect(uploaded.error).toBeNull();
    expect(await (await alice.client.storage.from('study-material').download(path)).data?.text()).toBe('replaced');
  });

  it('refuses to sign an upload the policies would refuse, or of an existing object without upsert', async () => {
    const intoAlice = await bob.client.storage.from('study-material').createSignedUploadUrl(`${alice.id}/bob.txt`);
    expect(intoAlice.data).toBeNull();
    expect((intoAlice.error as unknown as { statusCode: string }).statusCode).toBe('403');
    const anonymous = await anon.storage.from('study-material').createSignedUploadUrl(`${alice.id}/anon.txt`);
    expect((anonymous.error as unknown as { statusCode: string }).statusCode).toBe('403');
    const existing = await alice.client.storage.from('study-material').createSignedUploadUrl(`${alice.id}/notes.txt`);
    expect(existing.error?.message).toBe('The resource already exists');
    // Nothing was written by the tries.
    const listed = await alice.client.storage.from('study-material').list(alice.id);
    expect(listed.data?.map((entry) => entry.name)).not.toContain('bob.txt');
  });

  it('refuses a download token for an upload, and an expired upload token', async () => {
    const path = `${alice.id}/late.txt`;
    const download = await alice.client.storage.from('study-material').createSignedUrl(`${alice.id}/notes.txt`, 60);
    const wrongScope = await anon.storage
      .from('study-material')
      .uploadToSignedUrl(`${alice.id}/notes.txt`, tokenOf(download.data!.signedUrl), 'x', {
        contentType: 'text/plain',
      });
    expect(wrongScope.error?.message).toBe('Token is not scoped for upload');
    const now = Math.floor(Date.now() / 1000);
    const expired = await signJwt(
      { url: `study-material/${path}`, scope: 'upload', owner: alice.id, upsert: false, exp: now - 60 },
      localbase.jwtSecret,
    );
    const late = await anon.storage
      .from('study-material')
      .uploadToSignedUrl(path, expired, 'x', { contentType: 'text/plain' });
    expect(late.error?.message).toBe('jwt expired');
    const listed = await alice.client.storage.from('study-material').list(alice.id);
    expect(listed.data?.map((entry) => entry.name)).not.toContain('late.txt');
  });

  it('writes nothing once its signer is banned or deleted: AccessDenied, the signer not named', async () => {
    const admin = clientFor(localbase, localbase.serviceRoleKey);
    const signers = [await signedUpClient(localbase, 'signed-banned'), await signedUpClient(localbase, 'signed-gone')];
    const signed = await Promise.all(
      signers.map((signer) => signer.client.storage.from('study-material').createSignedUploadUrl(`${signer.id}/x.txt`)),
    );
    expect((await admin.auth.admin.updateUserById(signers[0]!.id, { ban_duration: '1h' })).error).toBeNull();
    expect((await admin.auth.admin.deleteUser(signers[1]!.id)).error).toBeNull();
    for (const [index, signer] of signers.entries()) {
      const { data, error } = await anon.storage
        .from('study-material')
        .uploadToSignedUrl(`${signer.id}/x.txt`, signed[index]!.data!.token, 'late', { contentType: 'text/plain' });
      expect(data).toBeNull();
      expect((error as unknown as { statusCode: string }).statusCode).toBe('403');
      expect(error?.message).toBe('The account that signed this upload URL no longer exists or is banned');
    }
    const { data: stored } = await admin.storage.from('study-material').list(signers[0]!.id);
    expect(stored).toEqual([]);
  });
});

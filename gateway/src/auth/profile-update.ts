// What a profile write does: validate (the columns' own limits first), store an avatar data URL in
// the public `avatars` bucket under the caller's folder, set the handle through the community
// function when the backend has it, and patch the row with the caller's token.
import { z } from 'zod';
import { profileRow } from '#contracts/auth-answers.ts';
import { BackendError, type BackendClient } from '../backend/backend-client.ts';
import { GatewayError } from '../http-errors.ts';
import { databaseJsonObject, databaseText } from '../security/database-values.ts';
import { decodeAvatarDataUrl, isDataUrl } from './avatar-data-url.ts';
import type { Caller } from './bearer.ts';

// The columns' own limits (display_name 80, avatar_url 2048 characters) are checked here first; a
// data URL is not stored as such but decoded into the avatars bucket, so it may be longer.
const storedAvatarUrl = z
  .union([z.url({ protocol: /^https?$/ }), z.string().startsWith('/__backend/')])
  .pipe(databaseText(2048));
export const profileBody = z.strictObject({
  display_name: z.string().trim().pipe(databaseText(80)).nullish(),
  handle: z
    .string()
    .trim()
    .regex(/^[a-z0-9_]{3,24}$/i, { message: 'must be 3 to 24 letters, digits or underscores' })
    .optional(),
  avatar_url: z.union([storedAvatarUrl, z.string().startsWith('data:')]).nullish(),
  profile_data: databaseJsonObject.optional(),
});

export async function readProfile(backend: BackendClient, caller: Caller) {
  const rows = await backend.select(`user_profiles?select=*&user_id=eq.${caller.userId}`, { userToken: caller.token });
  if (!rows.length)
    throw new GatewayError(404, 'profile_not_found', 'This account has no profile yet; call /__auth/bootstrap first.');
  return profileRow.parse(rows[0]);
}

async function storeAvatar(
  backend: BackendClient,
  caller: Caller,
  dataUrl: string,
  publicBase: string,
): Promise<string> {
  const avatar = decodeAvatarDataUrl(dataUrl);
  const objectPath = `${caller.userId}/avatar-${Date.now()}.${avatar.extension}`;
  await backend.request(`/storage/v1/object/avatars/${objectPath}`, {
    credential: { userToken: caller.token },
    rawBody: avatar.bytes,
    contentType: avatar.contentType,
    headers: { 'x-upsert': 'true' },
  });
  return backend.publicObjectUrl('avatars', objectPath, publicBase);
}

/**
 * The handle goes through community_bootstrap_profile (column + profile_data key) when it exists;
 * false when the backend has no such function. A taken handle is the database's `handle_taken`
 * (409, mapped in backend-errors.ts).
 */
async function setHandle(backend: BackendClient, caller: Caller, handle: string): Promise<boolean> {
  try {
    await backend.rpc('community_bootstrap_profile', { p_handle: handle }, { userToken: caller.token });
    return true;
  } catch (error) {
    if (error instanceof BackendError && error.code === 'PGRST202') return false;
    throw error;
  }
}

export type ProfileChanges = z.infer<typeof profileBody>;

export async function updateProfile(
  backend: BackendClient,
  caller: Caller,
  body: ProfileChanges,
  publicBackendBase: string,
) {
  const current = await readProfile(backend, caller);
  const changes: Record<string, unknown> = {};
  if (body.display_name !== undefined) changes.display_name = body.display_name || null;
  if (body.avatar_url !== undefined) {
    changes.avatar_url =
      body.avatar_url && isDataUrl(body.avatar_url)
        ? await storeAvatar(backend, caller, body.avatar_url, publicBackendBase)
        : body.avatar_url;
  }
  // community_handle in profile_data always mirrors the handle column; only a handle change moves it.
  const { community_handle: _ignored, ...dataChanges } = body.profile_data ?? {};
  let profileData = body.profile_data ? { ...current.profile_data, ...dataChanges } : undefined;
  if (body.handle !== undefined) {
    const viaRpc = await setHandle(backend, caller, body.handle);
    if (!viaRpc) changes.handle = body.handle;
    if (profileData || !viaRpc)
      profileData = { ...(profileData ?? current.profile_data), community_handle: body.handle };
  }
  if (profileData) changes.profile_data = profileData;
  if (Object.keys(changes).length === 0) return readProfile(backend, caller);
  const { body: rows } = await backend.request(`/rest/v1/user_profiles?user_id=eq.${caller.userId}`, {
    method: 'PATCH',
    credential: { userToken: caller.token },
    headers: { prefer: 'return=representation' },
    body: changes,
  });
  return z.tuple([profileRow]).parse(rows)[0];
}

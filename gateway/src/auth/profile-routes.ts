// /__auth/bootstrap and /__auth/profile (bearer token). A profile write with an avatar data URL
// stores the image in the public `avatars` bucket under the caller's folder and saves its URL.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { BackendError, type BackendClient } from '../backend/backend-client.ts';
import { GatewayError, parseOrThrow } from '../http-errors.ts';
import { decodeAvatarDataUrl, isDataUrl } from './avatar-data-url.ts';
import { requireBearer, type Caller } from './bearer.ts';
import { loadProfileBundle } from './profile-bundle.ts';

export interface ProfileRoutesOptions {
  backend: BackendClient;
  /** Where browsers reach the backend's public storage URLs (the hosted URL, or /__backend). */
  publicBackendBase: string;
}

const profileBody = z.strictObject({
  display_name: z.string().trim().max(80).nullish(),
  handle: z.string().trim().regex(/^[a-z0-9_]{3,24}$/i, { message: 'must be 3 to 24 letters, digits or underscores' }).optional(),
  avatar_url: z.union([z.url({ protocol: /^https?$/ }), z.string().startsWith('data:'), z.string().startsWith('/__backend/')]).nullish(),
  profile_data: z.record(z.string(), z.unknown()).optional(),
});

const profileRow = z.object({ user_id: z.string(), profile_data: z.record(z.string(), z.unknown()) }).loose();

async function readProfile(backend: BackendClient, caller: Caller) {
  const rows = await backend.select(`user_profiles?select=*&user_id=eq.${caller.userId}`, { userToken: caller.token });
  if (!rows.length) throw new GatewayError(404, 'profile_not_found', 'This account has no profile yet; call /__auth/bootstrap first.');
  return profileRow.parse(rows[0]);
}

async function storeAvatar(backend: BackendClient, caller: Caller, dataUrl: string, publicBase: string): Promise<string> {
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

/** The handle goes through community_bootstrap_profile (column + profile_data key) when it exists. */
async function setHandle(backend: BackendClient, caller: Caller, handle: string): Promise<boolean> {
  try {
    await backend.rpc('community_bootstrap_profile', { p_handle: handle }, { userToken: caller.token });
    return true;
  } catch (error) {
    if (error instanceof BackendError && (error.code === 'PGRST202' || error.status === 404)) return false;
    // community_bootstrap_profile raises handle_taken (P0011); a unique index says 23505.
    if (error instanceof BackendError && (error.code === '23505' || error.code === 'P0011' || /taken|exists/i.test(error.code) || error.message === 'handle_taken')) {
      throw new GatewayError(409, 'handle_taken', 'Another student already has this handle.');
    }
    throw error;
  }
}

const profileRoutes: FastifyPluginAsync<ProfileRoutesOptions> = async (app, { backend, publicBackendBase }) => {
  app.get('/__auth/bootstrap', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return loadProfileBundle(backend, requireBearer(request));
  });

  app.get('/__auth/profile', async (request) => ({ ok: true, profile: await readProfile(backend, requireBearer(request)) }));

  app.post('/__auth/profile', { bodyLimit: 4 * 1024 * 1024 }, async (request) => {
    const caller = requireBearer(request);
    const body = parseOrThrow(profileBody, request.body);
    const current = await readProfile(backend, caller);
    const changes: Record<string, unknown> = {};
    if (body.display_name !== undefined) changes.display_name = body.display_name || null;
    if (body.avatar_url !== undefined) {
      changes.avatar_url = body.avatar_url && isDataUrl(body.avatar_url) ? await storeAvatar(backend, caller, body.avatar_url, publicBackendBase) : body.avatar_url;
    }
    // community_handle in profile_data always mirrors the handle column; only a handle change moves it.
    const { community_handle: _ignored, ...dataChanges } = body.profile_data ?? {};
    let profileData = body.profile_data ? { ...current.profile_data, ...dataChanges } : undefined;
    if (body.handle !== undefined) {
      const viaRpc = await setHandle(backend, caller, body.handle);
      if (!viaRpc) changes.handle = body.handle;
      if (profileData || !viaRpc) profileData = { ...(profileData ?? current.profile_data), community_handle: body.handle };
    }
    if (profileData) changes.profile_data = profileData;
    if (Object.keys(changes).length === 0) return { ok: true, profile: await readProfile(backend, caller) };
    const { body: rows } = await backend.request(`/rest/v1/user_profiles?user_id=eq.${caller.userId}`, {
      method: 'PATCH',
      credential: { userToken: caller.token },
      headers: { prefer: 'return=representation' },
      body: changes,
    });
    return { ok: true, profile: z.array(profileRow).length(1).parse(rows)[0] };
  });
};

export default profileRoutes;

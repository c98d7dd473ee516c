// /__auth/bootstrap and /__auth/profile (bearer token). A profile write with an avatar data URL
// stores the image in the public `avatars` bucket (profile-update.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { BackendClient } from '../backend/backend-client.ts';
import { parseOrThrow } from '../http-errors.ts';
import { BODY_LIMITS } from '../security/body-limits.ts';
import { requireBearer } from './bearer.ts';
import { loadProfileBundle } from './profile-bundle.ts';
import { profileBody, readProfile, updateProfile } from './profile-update.ts';

export interface ProfileRoutesOptions {
  backend: BackendClient;
  /** Where browsers reach the backend's public storage URLs (the hosted URL, or /__backend). */
  publicBackendBase: string;
}

const profileRoutes: FastifyPluginAsync<ProfileRoutesOptions> = async (app, options) => {
  app.get('/__auth/bootstrap', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return loadProfileBundle(options.backend.forRoute(), requireBearer(request));
  });

  app.get('/__auth/profile', async (request) => ({
    ok: true,
    profile: await readProfile(options.backend.forRoute(), requireBearer(request)),
  }));

  app.post('/__auth/profile', { bodyLimit: BODY_LIMITS.profile }, async (request) => {
    const caller = requireBearer(request);
    const body = parseOrThrow(profileBody, request.body);
    return {
      ok: true,
      profile: await updateProfile(options.backend.forRoute(), caller, body, options.publicBackendBase),
    };
  });
};

export default profileRoutes;

// /__auth/bootstrap and /__auth/profile (bearer token). A profile write with an avatar data URL
// stores the image in the public `avatars` bucket (profile-update.ts).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { profileAnswer, profileBundle } from '#contracts/auth-answers.ts';
import type { BackendClient } from '../backend/backend-client.ts';
import { withErrorBody } from '../route-schemas.ts';
import { BODY_LIMITS } from '../security/body-limits.ts';
import { bearerBeforeBody, requireBearer } from './bearer.ts';
import { loadProfileBundle } from './profile-bundle.ts';
import { profileBody, readProfile, updateProfile } from './profile-update.ts';

export interface ProfileRoutesOptions {
  backend: BackendClient;
  /** Where browsers reach the backend's public storage URLs (the hosted URL, or /__backend). */
  publicBackendBase: string;
}

const profileRoutes: FastifyPluginAsyncZod<ProfileRoutesOptions> = async (app, options) => {
  const bundleSchema = { response: withErrorBody({ 200: profileBundle }) };
  app.get('/__auth/bootstrap', { schema: bundleSchema }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return loadProfileBundle(options.backend.forRoute(), requireBearer(request));
  });

  const profileSchema = { response: withErrorBody({ 200: profileAnswer }) };
  app.get('/__auth/profile', { schema: profileSchema }, async (request) => ({
    ok: true as const,
    profile: await readProfile(options.backend.forRoute(), requireBearer(request)),
  }));

  const changeSchema = { body: profileBody, response: withErrorBody({ 200: profileAnswer }) };
  const change = { bodyLimit: BODY_LIMITS.profile, preValidation: bearerBeforeBody, schema: changeSchema };
  app.post('/__auth/profile', change, async (request) => {
    const caller = requireBearer(request);
    const body = request.body;
    return {
      ok: true as const,
      profile: await updateProfile(options.backend.forRoute(), caller, body, options.publicBackendBase),
    };
  });
};

export default profileRoutes;

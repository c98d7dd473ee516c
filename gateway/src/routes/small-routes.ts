// Liveness, version and AI configuration: the small routes that read only the checkout and config.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { aiConfigAnswer, pingAnswer, versionAnswer } from '#contracts/gateway-answers.ts';
import { readBuildInfo } from '../build-info.ts';
import { withErrorBody } from '../route-schemas.ts';

export interface SmallRoutesOptions {
  repoDir: string;
  ai: { openai: boolean; gemini: boolean };
  /** The server's owner (update/update-owner.ts): only they are told the last commit's message. */
  isOwner?: (request: FastifyRequest) => Promise<boolean>;
}

const smallRoutes: FastifyPluginAsyncZod<SmallRoutesOptions> = async (app, options) => {
  // The web app asks every few seconds whether the server is there: a request log line each time
  // would bury the rest of server.log, so only its warnings and errors are logged.
  app.get('/__app/ping', { logLevel: 'warn', schema: { response: withErrorBody({ 200: pingAnswer }) } }, async () => ({
    ok: true as const,
    at: new Date().toISOString(),
  }));

  app.get('/api/version', { schema: { response: withErrorBody({ 200: versionAnswer }) } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const info = await readBuildInfo(options.repoDir);
    // The version and SHA tell a page that the server changed; what changed is the owner's business.
    return options.isOwner && !(await options.isOwner(request)) ? { ...info, commit_message: null } : info;
  });

  // Booleans only: whether a key is configured, never the key or any part of it.
  app.get('/api/ai-config', { schema: { response: withErrorBody({ 200: aiConfigAnswer }) } }, async () => ({
    openai: options.ai.openai,
    gemini: options.ai.gemini,
  }));
};

export default smallRoutes;

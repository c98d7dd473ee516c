// Liveness, version and AI configuration: the small routes that read only the checkout and config.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { readBuildInfo } from '../build-info.ts';

export interface SmallRoutesOptions {
  repoDir: string;
  ai: { openai: boolean; gemini: boolean };
  /** The server's owner (update/update-owner.ts): only they are told the last commit's message. */
  isOwner?: (request: FastifyRequest) => Promise<boolean>;
}

const smallRoutes: FastifyPluginAsync<SmallRoutesOptions> = async (app, options) => {
  // The web app asks every few seconds whether the server is there: a request log line each time
  // would bury the rest of server.log, so only its warnings and errors are logged.
  app.get('/__app/ping', { logLevel: 'warn' }, async () => ({ ok: true, at: new Date().toISOString() }));

  app.get('/api/version', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const info = await readBuildInfo(options.repoDir);
    // The version and SHA tell a page that the server changed; what changed is the owner's business.
    return options.isOwner && !(await options.isOwner(request)) ? { ...info, commit_message: null } : info;
  });

  // Booleans only: whether a key is configured, never the key or any part of it.
  app.get('/api/ai-config', async () => ({ openai: options.ai.openai, gemini: options.ai.gemini }));
};

export default smallRoutes;

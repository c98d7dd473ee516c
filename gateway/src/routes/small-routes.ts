// Liveness, version and AI configuration: the small routes that read only the checkout and config.
import type { FastifyPluginAsync } from 'fastify';
import { readBuildInfo } from '../build-info.ts';

export interface SmallRoutesOptions {
  repoDir: string;
  ai: { openai: boolean; gemini: boolean };
}

const smallRoutes: FastifyPluginAsync<SmallRoutesOptions> = async (app, options) => {
  // The web app asks every few seconds whether the server is there: a request log line each time
  // would bury the rest of server.log, so only its warnings and errors are logged.
  app.get('/__app/ping', { logLevel: 'warn' }, async () => ({ ok: true, at: new Date().toISOString() }));

  app.get('/api/version', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return readBuildInfo(options.repoDir);
  });

  // Booleans only: whether a key is configured, never the key or any part of it.
  app.get('/api/ai-config', async () => ({ openai: options.ai.openai, gemini: options.ai.gemini }));
};

export default smallRoutes;

// GET /api/push/vapid-public-key: the key a browser passes to pushManager.subscribe() as
// applicationServerKey. Public by design; 503 when this gateway has no Web Push identity.
import type { FastifyPluginAsync } from 'fastify';
import { sendError } from '../http-errors.ts';
import type { PushService } from './push-service.ts';

const pushRoutes: FastifyPluginAsync<{ push: PushService }> = async (app, options) => {
  app.get('/api/push/vapid-public-key', async (_request, reply) => {
    const vapid = await options.push.vapidKeys();
    if (!vapid.ok)
      return sendError(reply, 503, 'push_unavailable', `Web Push is not available on this server: ${vapid.reason}.`);
    // A changed key means every browser must subscribe again: never let a cache hide the change.
    reply.header('cache-control', 'no-cache');
    return { public_key: vapid.keys.publicKey };
  });
};

export default pushRoutes;

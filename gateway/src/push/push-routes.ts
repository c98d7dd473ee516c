// GET /api/push/vapid-public-key: the key a browser passes to pushManager.subscribe() as
// applicationServerKey. Public by design; 503 when this gateway has no Web Push identity.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { vapidKeyAnswer } from '#contracts/gateway-answers.ts';
import { sendError } from '../http-errors.ts';
import { withErrorBody } from '../route-schemas.ts';
import type { PushService } from './push-service.ts';

const pushRoutes: FastifyPluginAsyncZod<{ push: PushService }> = async (app, options) => {
  app.get(
    '/api/push/vapid-public-key',
    { schema: { response: withErrorBody({ 200: vapidKeyAnswer }) } },
    async (_request, reply) => {
      const vapid = await options.push.vapidKeys();
      if (!vapid.ok)
        return sendError(reply, 503, 'push_unavailable', `Web Push is not available on this server: ${vapid.reason}.`);
      // A changed key means every browser must subscribe again: never let a cache hide the change.
      reply.header('cache-control', 'no-cache');
      return { public_key: vapid.keys.publicKey };
    },
  );
};

export default pushRoutes;

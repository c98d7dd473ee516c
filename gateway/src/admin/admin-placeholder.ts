// /__admin/*: the admin console is a later issue. Until it lands every admin route is refused the
// way the spec refuses them when admin mode is not ready.
import type { FastifyPluginAsync } from 'fastify';
import { sendError } from '../http-errors.ts';

const adminPlaceholder: FastifyPluginAsync = async (app) => {
  const refuse = (_request: unknown, reply: Parameters<typeof sendError>[0]) =>
    sendError(reply, 403, 'admin_mode_not_ready', 'The admin console is not available on this server yet.', {
      admin_available: false,
    });
  app.all('/__admin', refuse);
  app.all('/__admin/*', refuse);
};

export default adminPlaceholder;

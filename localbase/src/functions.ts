// /functions/v1: no edge functions exist locally; every name is unknown, never a fake success.
import type { FastifyInstance } from 'fastify';

export async function functionsRoutes(app: FastifyInstance): Promise<void> {
  // Any body is accepted and ignored: the answer does not depend on it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
  app.all('/*', async (_request, reply) => reply.status(404).send({ error: 'function_not_found' }));
}

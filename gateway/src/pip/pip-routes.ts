// The timer relay: the focus page posts snapshots and listens for actions; the phone companion
// polls the snapshot and posts actions (spec "Application routes", DESIGN.md decisions).
import type { FastifyPluginAsync } from 'fastify';
import { parseOrThrow } from '../http-errors.ts';
import { pipAction, timerSnapshotInput } from './pip-schemas.ts';
import type { PipRelay } from './pip-relay.ts';

export interface PipRoutesOptions {
  relay: PipRelay;
}

const pipRoutes: FastifyPluginAsync<PipRoutesOptions> = async (app, { relay }) => {
  app.post('/__pip/state', { bodyLimit: 16 * 1024 }, async (request) => {
    const snapshot = relay.storeSnapshot(parseOrThrow(timerSnapshotInput, request.body));
    return { ok: true, updatedAt: snapshot.updatedAt };
  });

  app.get('/api/pip/state', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return relay.latestSnapshot();
  });

  app.post('/api/pip/action', { bodyLimit: 4 * 1024 }, async (request, reply) => {
    const { event, delivered } = relay.relayPipAction(parseOrThrow(pipAction, request.body));
    return reply.code(202).send({ accepted: true, delivered, id: event.id });
  });

  app.get('/__pip/events', (request, reply) => {
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    stream.socket?.setNoDelay(true);
    // Ask EventSource to come back after 2 s when the connection drops.
    stream.write('retry: 2000\n\n');
    relay.subscribe(stream);
    request.raw.on('close', () => stream.end());
  });
};

export default pipRoutes;

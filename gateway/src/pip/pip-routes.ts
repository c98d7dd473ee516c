// The timer relay: the focus page posts snapshots and listens for actions; the phone companion
// polls the snapshot and posts actions (spec "Application routes", DESIGN.md decisions).
import type { FastifyPluginAsync } from 'fastify';
import { parseOrThrow } from '../http-errors.ts';
import { RAW_STREAM_HEADERS } from '../security/security-headers.ts';
import { pipAction, timerSnapshotInput } from './pip-schemas.ts';
import type { PipRelay } from './pip-relay.ts';

export interface PipRoutesOptions {
  relay: PipRelay;
}

// The phone companion runs in its own WebView origin and calls the two /api/pip routes across
// origins; they carry no credentials and no private data, so any origin may call them. That is by
// design (the timer relay is open on the LAN); SECURITY.md says so.
const companionCors = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '600',
};

const pipRoutes: FastifyPluginAsync<PipRoutesOptions> = async (app, { relay }) => {
  for (const url of ['/api/pip/state', '/api/pip/action']) {
    app.options(url, async (_request, reply) => reply.headers(companionCors).code(204).send());
  }

  app.post('/__pip/state', { bodyLimit: 16 * 1024 }, async (request) => {
    const snapshot = relay.storeSnapshot(parseOrThrow(timerSnapshotInput, request.body));
    return { ok: true, updatedAt: snapshot.updatedAt };
  });

  app.get('/api/pip/state', async (_request, reply) => {
    reply.headers(companionCors).header('cache-control', 'no-store');
    return relay.latestSnapshot();
  });

  app.post('/api/pip/action', { bodyLimit: 4 * 1024 }, async (request, reply) => {
    reply.headers(companionCors);
    const { event, delivered } = relay.relayPipAction(parseOrThrow(pipAction, request.body));
    return reply.code(202).send({ accepted: true, delivered, id: event.id });
  });

  app.get('/__pip/events', (request, reply) => {
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, {
      ...RAW_STREAM_HEADERS,
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

// The HTTPS listener: a second server for the same Fastify app, so a route, hook, limit and
// measurement exists once for both schemes. Requests go through `app.routing` (the handler Fastify
// gives its own server); WebSocket upgrades (realtime through /__backend) are handed to the app's
// server, where @fastify/websocket and the proxy listen for them. A new certificate
// (tls-identity.ts) is swapped in without dropping a connection. It is closed after the app (whose
// close answers 503 to new requests on both listeners and ends the event streams).
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { TlsIdentity } from './tls-identity.ts';

export interface HttpsListener {
  server: https.Server;
  /** The port it listens on (HTTPS_PORT, or the one the system chose for 0). */
  port: number;
  /** Stops listening and ends the connections left (call it after app.close()). */
  close(): Promise<void>;
}

export async function listenHttps(
  app: FastifyInstance,
  identity: TlsIdentity,
  where: { host: string; port: number },
): Promise<HttpsListener> {
  // The chain sent is the server's certificate and the local CA's: a client that pins the CA's key
  // (or shows the chain to a person) finds it in the handshake.
  const chainOf = (certPem: string) => `${certPem.trimEnd()}\n${identity.ca?.pem ?? ''}`;
  const { certPem, keyPem } = identity.current();
  const server = https.createServer({ cert: chainOf(certPem), key: keyPem }, app.routing);
  // Fastify's own server settings, so both listeners treat slow and idle clients alike.
  server.keepAliveTimeout = app.server.keepAliveTimeout;
  server.requestTimeout = app.server.requestTimeout;
  server.headersTimeout = app.server.headersTimeout;
  server.on('upgrade', (request, socket, head) => app.server.emit('upgrade', request, socket, head));
  server.on('clientError', (_error, socket) => socket.destroy());
  const stopSwapping = identity.onChange((next) =>
    server.setSecureContext({ cert: chainOf(next.certPem), key: next.keyPem }),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        stopSwapping();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

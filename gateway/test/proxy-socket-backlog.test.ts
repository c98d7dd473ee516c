// What the proxy holds for one realtime socket is bounded in both directions: frames for a client
// that stops reading, and frames a client sends while the backend connection is still opening. Past
// SOCKET_BACKLOG_BYTES the client's socket is dropped (and the backend's with it); a client that
// reads, or sends a little before the backend answers, is served as before.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { SOCKET_BACKLOG_BYTES } from '../src/proxy/backend-proxy.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

const MIB = 1024 * 1024;
const keys = { anonKey: 'anon', serviceRoleKey: 'service' };

interface SocketBackend {
  url: string;
  /** The backend's side of each socket, in order of connection. */
  connections: WebSocket[];
  /** Messages it received, across sockets. */
  received: string[];
  close(): Promise<void>;
}

/** A realtime stand-in: completes each WebSocket handshake after `handshakeDelayMs`. */
async function socketBackend(handshakeDelayMs = 0): Promise<SocketBackend> {
  const sockets = new WebSocketServer({ noServer: true });
  const connections: WebSocket[] = [];
  const received: string[] = [];
  const server = http.createServer((_request, response) => response.writeHead(404).end());
  server.on('upgrade', (request, socket, head) => {
    setTimeout(() => {
      sockets.handleUpgrade(request, socket, head, (connection) => {
        connections.push(connection);
        connection.on('message', (data) => received.push(String(data).slice(0, 40)));
      });
    }, handshakeDelayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    received,
    close: async () => {
      for (const connection of connections) connection.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > timeoutMs) throw new Error(`not ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let backend: SocketBackend;
let gateway: TestGateway;

async function start(handshakeDelayMs = 0): Promise<string> {
  backend = await socketBackend(handshakeDelayMs);
  gateway = await startTestGateway({ backend: { url: backend.url, ...keys } });
  const baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return `${baseUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?vsn=1.0.0`;
}

afterEach(async () => {
  await gateway?.close();
  await backend?.close();
});

function closedPromise(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

const frame = 'x'.repeat(MIB);
const frames = (2 * SOCKET_BACKLOG_BYTES) / MIB;

describe('the realtime proxy', () => {
  it(`drops a client that does not read once more than ${SOCKET_BACKLOG_BYTES / MIB} MiB wait for it, and the backend's socket with it`, async () => {
    const client = new WebSocket(await start());
    await new Promise((resolve) => client.once('open', resolve));
    await until(() => backend.connections.length === 1, 'connected to the backend');
    const upstream = backend.connections[0] as WebSocket;
    const upstreamClosed = closedPromise(upstream);
    // The client stops reading; the backend keeps sending.
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    for (let sent = 0; sent < frames && upstream.readyState === WebSocket.OPEN; sent += 1) {
      upstream.send(frame);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await upstreamClosed;
    expect(upstream.readyState).toBe(WebSocket.CLOSED);
    client.terminate();
  });

  it('passes the same frames to a client that reads them', async () => {
    const client = new WebSocket(await start());
    let read = 0;
    client.on('message', () => (read += 1));
    await new Promise((resolve) => client.once('open', resolve));
    await until(() => backend.connections.length === 1, 'connected to the backend');
    const upstream = backend.connections[0] as WebSocket;
    for (let sent = 0; sent < frames; sent += 1) {
      upstream.send(frame);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await until(() => read === frames, 'every frame read');
    expect(client.readyState).toBe(WebSocket.OPEN);
    client.close();
  });

  it(`drops a client that sends more than ${SOCKET_BACKLOG_BYTES / MIB} MiB while the backend connection is still opening`, async () => {
    const client = new WebSocket(await start(1_000));
    await new Promise((resolve) => client.once('open', resolve));
    const closed = closedPromise(client);
    for (let sent = 0; sent < frames && client.readyState === WebSocket.OPEN; sent += 1) client.send(frame);
    await closed;
    // Nothing it queued reaches the backend.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(backend.received).toEqual([]);
  });

  it('closes the backend socket of a client that left before it was open', async () => {
    const client = new WebSocket(await start(500));
    await new Promise((resolve) => client.once('open', resolve));
    client.terminate();
    await until(() => backend.connections.length === 1, 'the backend handshake done');
    const upstream = backend.connections[0] as WebSocket;
    await until(() => upstream.readyState === WebSocket.CLOSED, 'the backend socket closed', 3_000);
  });

  it('stops reading a client that keeps sending once the backend closed its side', async () => {
    const client = new WebSocket(await start());
    await new Promise((resolve) => client.once('open', resolve));
    await until(() => backend.connections.length === 1, 'connected to the backend');
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    // The backend ends the connection (as localbase ends one past its rate limits) while the client
    // has a flood queued: the proxy drops the client rather than read it all before the close.
    (backend.connections[0] as WebSocket).close(1008, 'Too many messages per second');
    for (let sent = 0; sent < 32 && client.readyState === WebSocket.OPEN; sent += 1) client.send(frame);
    // Dropped (1006), not closed by a handshake that would come after everything the client queued.
    expect(await closed).toBe(1006);
  });

  it('passes on what a client sent before the backend connection was open', async () => {
    const client = new WebSocket(await start(500));
    await new Promise((resolve) => client.once('open', resolve));
    client.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '1' }));
    await until(() => backend.received.length === 1, 'the early frame passed on');
    expect(backend.received[0]).toContain('heartbeat');
    expect(client.readyState).toBe(WebSocket.OPEN);
    client.close();
  });
});

// Loopback backends that misbehave on purpose: one that accepts connections and never answers, one
// that answers after a delay, and a port where nothing listens. Real sockets, real timing.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface FaultyBackend {
  url: string;
  /** Requests (or connections) it has seen. */
  seen(): number;
  close(): Promise<void>;
}

/** Accepts every connection, reads what comes, never writes a byte. */
export async function silentBackend(): Promise<FaultyBackend> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Answers `{"ok": true}` (or a JSON array for /rest/v1 reads) after `delayMs(url)` milliseconds. */
export async function slowBackend(
  delayMs: (url: string) => number,
): Promise<FaultyBackend & { sockets: WebSocketServer }> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests++;
    request.resume();
    request.on('end', () => {
      const timer = setTimeout(
        () => {
          response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        },
        delayMs(request.url ?? ''),
      );
      response.on('close', () => clearTimeout(timer));
    });
  });
  const sockets = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sockets,
    seen: () => requests,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port on which nothing listens: connections are refused at once. */
export async function refusingBackendUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

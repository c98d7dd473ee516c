// A loopback round-robin proxy for benches that run several studyhall servers, as a district's load
// balancer spreads a class over them: each new HTTP request and each WebSocket upgrade goes to the
// next server in turn, with no stickiness. A server that refuses the connection (stopped, killed) is
// left out for DOWN_MS and the request goes to the next one: nothing was sent to it, so trying again
// elsewhere is safe even for a write. A request or socket that was already under way when its server
// died is cut, as a real balancer cuts it, and never sent again (it may have been written); the
// client decides what to do (retry, reconnect). Each request to a server opens a connection of its
// own: a kept-alive one the server had just closed as idle would fail the request as a kill does.
// Not the product's: docs/ show the Caddy and nginx configurations a district runs.
// forkRoundRobinProxy runs it in a process of its own, as a balancer runs apart from the clients:
// in the bench's process it would share one thread with hundreds of clients' sockets.
import { fork } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';

/** How long a server that refused a connection is left out of the rotation. */
const DOWN_MS = 2_000;
/** How long a client's idle kept-alive connection stays open. */
const IDLE_CLIENT_MS = 10 * 60_000;

export interface RoundRobinProxy {
  url: string;
  /** Requests and upgrades sent to each server (by its base URL). */
  counts: Map<string, number>;
  close(): Promise<void>;
}

interface Target {
  url: URL;
  downUntil: number;
}

export async function startRoundRobinProxy(targets: readonly string[]): Promise<RoundRobinProxy> {
  const servers: Target[] = targets.map((target) => ({ url: new URL(target), downUntil: 0 }));
  const counts = new Map(targets.map((target) => [target, 0]));
  let next = 0;
  /** Passed-through upgrades, which the HTTP server no longer tracks, ended on close(). */
  const tunnels = new Set<net.Socket>();

  /** The servers to try for one request, starting with the next in turn, the ones left out last. */
  function order(): Target[] {
    const start = next;
    next = (next + 1) % servers.length;
    const turn = servers.map((_, offset) => servers[(start + offset) % servers.length] as Target);
    const now = Date.now();
    return [...turn.filter((server) => server.downUntil <= now), ...turn.filter((server) => server.downUntil > now)];
  }

  function count(target: Target): void {
    const key = target.url.toString().replace(/\/$/, '');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  const proxy = http.createServer((request, response) => {
    // The body is buffered so that a refused connection can be retried on the next server.
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const attempt = (candidates: Target[]): void => {
        const target = candidates.shift();
        if (!target) {
          response.writeHead(502, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: 'bad_gateway', message: 'No server answered.' }));
          return;
        }
        const outgoing = http.request(
          {
            host: target.url.hostname,
            port: target.url.port,
            method: request.method,
            path: request.url,
            headers: request.headers,
            agent: false,
          },
          (answer) => {
            count(target);
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
          },
        );
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code === 'ECONNREFUSED') {
            target.downUntil = Date.now() + DOWN_MS;
            attempt(candidates);
          } else if (!response.headersSent) {
            response.writeHead(502, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ error: 'bad_gateway', message: error.message }));
          } else {
            response.destroy(error);
          }
        });
        outgoing.end(body);
      };
      attempt(order());
    });
  });

  // A WebSocket (or any upgrade) is passed through as bytes: the request line and headers as the
  // client sent them, then both ways until either side closes.
  proxy.on('upgrade', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const attempt = (candidates: Target[]): void => {
      const target = candidates.shift();
      if (!target) {
        client.destroy();
        return;
      }
      const upstream = net.connect(Number(target.url.port), target.url.hostname);
      upstream.once('connect', () => {
        count(target);
        tunnels.add(client);
        tunnels.add(upstream);
        const lines = [`${request.method} ${request.url} HTTP/1.1`];
        for (let index = 0; index < request.rawHeaders.length; index += 2)
          lines.push(`${request.rawHeaders[index]}: ${request.rawHeaders[index + 1]}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        upstream.on('close', () => {
          tunnels.delete(upstream);
          client.destroy();
        });
        client.on('close', () => {
          tunnels.delete(client);
          upstream.destroy();
        });
      });
      upstream.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') {
          target.downUntil = Date.now() + DOWN_MS;
          attempt(candidates);
        } else client.destroy();
      });
    };
    attempt(order());
  });

  // The clients' kept-alive connections stay open longer than they sit idle in a bench, so that the
  // proxy never closes one just as a client sends on it.
  proxy.keepAliveTimeout = IDLE_CLIENT_MS;
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of tunnels) socket.destroy();
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

/** The proxy in a child process: its URL, the counts asked over IPC, and close(). */
export interface ForkedRoundRobinProxy {
  url: string;
  counts(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

type FromProxy = { op: 'listening'; url: string } | { op: 'counts'; counts: [string, number][] };

export async function forkRoundRobinProxy(targets: readonly string[]): Promise<ForkedRoundRobinProxy> {
  const child = fork(new URL(import.meta.url).pathname, ['--serve-proxy', ...targets], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = <Op extends FromProxy['op']>(op: Op) =>
    new Promise<Extract<FromProxy, { op: Op }>>((resolve, reject) => {
      const onMessage = (message: FromProxy) => {
        if (message.op !== op) return;
        child.off('message', onMessage);
        resolve(message as Extract<FromProxy, { op: Op }>);
      };
      child.on('message', onMessage);
      void exited.then(() => reject(new Error('the proxy process exited')));
    });
  const { url } = await next('listening');
  return {
    url,
    async counts() {
      const answer = next('counts');
      child.send('counts');
      return new Map((await answer).counts);
    },
    async close() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

function serveParent(): void {
  const targets = process.argv.slice(process.argv.indexOf('--serve-proxy') + 1);
  void startRoundRobinProxy(targets).then((proxy) => {
    process.send?.({ op: 'listening', url: proxy.url } satisfies FromProxy);
    process.on('message', (message) => {
      if (message === 'counts') process.send?.({ op: 'counts', counts: [...proxy.counts] } satisfies FromProxy);
    });
    process.on('disconnect', () => void proxy.close().then(() => process.exit(0)));
  });
}

if (process.argv.includes('--serve-proxy')) serveParent();

// A loopback push service for tests and benchmarks. It plays both ends a real one connects: it
// mints subscriptions the way a browser does (a P-256 key pair and a 16-byte auth secret behind an
// endpoint URL), and as the push service it checks each request's VAPID signature, TTL and
// encoding, then decrypts the aes128gcm body with the subscription's private key (RFC 8291), as
// the browser would. Answers can be scripted per subscription (410, 500, a slow answer).
import { createECDH, randomBytes, randomUUID, type ECDH } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';
import { importJWK, jwtVerify } from 'jose';

export interface ReceivedPush {
  subscriptionId: string;
  payload: unknown;
  ttl: number;
  topic: string | undefined;
  urgency: string | undefined;
  receivedAt: number;
}

export interface RejectedPush {
  subscriptionId: string;
  reason: string;
}

export interface ReceiverSubscription {
  id: string;
  /** The device token as the browser's PushSubscription.toJSON(), stringified. */
  token: string;
}

/** What the receiver answers a push for one subscription: a status, after an optional delay. */
export interface ScriptedAnswer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

interface Subscriber {
  ecdh: ECDH;
  auth: Buffer;
  /** Answers still to give, in order; then 201. */
  script: ScriptedAnswer[];
}

export interface PushReceiver {
  url: string;
  received: ReceivedPush[];
  rejected: RejectedPush[];
  /** Requests answered so far per subscription id, whatever the answer. */
  attempts: Map<string, number>;
  /** A browser subscription whose endpoint is this receiver; keys checked against expectedVapidKey. */
  subscribe(): ReceiverSubscription;
  /** The next answers for that subscription (after them: 201). */
  script(subscriptionId: string, answers: ScriptedAnswer[]): void;
  /** Resolves with the pushes once `count` were received (for one subscription, or in all), or rejects after timeoutMs. */
  waitForReceived(count: number, timeoutMs: number, subscriptionId?: string): Promise<ReceivedPush[]>;
  close(): Promise<void>;
}

export interface PushReceiverOptions {
  /** The application server key browsers subscribed with: a push signed with another is refused 403. */
  expectedVapidKey: string;
  /** Skip decryption and signature checks (the benchmark's receiver measures the sender only). */
  verify?: boolean;
}

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Checks `Authorization: vapid t=<JWT>, k=<public key>` the way a push service does (RFC 8292). */
async function verifyVapid(
  header: string | undefined,
  expectedKey: string,
  audience: string,
): Promise<string | undefined> {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match) return 'no vapid authorization';
  const [, token, key] = match as unknown as [string, string, string];
  if (key !== expectedKey) return 'signed with another application server key';
  const point = Buffer.from(key, 'base64url');
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33, 65).toString('base64url'),
  };
  try {
    const { payload } = await jwtVerify(token, await importJWK(jwk, 'ES256'), { audience, algorithms: ['ES256'] });
    if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) return 'no contact subject';
    if (!payload.exp || payload.exp > Date.now() / 1000 + 24 * 3600 + 60) return 'token valid for more than 24 h';
  } catch (error) {
    return `bad vapid token: ${(error as Error).message}`;
  }
  return undefined;
}

export async function startPushReceiver(options: PushReceiverOptions): Promise<PushReceiver> {
  const verify = options.verify ?? true;
  const subscribers = new Map<string, Subscriber>();
  const received: ReceivedPush[] = [];
  const rejected: RejectedPush[] = [];
  const attempts = new Map<string, number>();
  const waiters = new Set<() => void>();
  let origin = '';

  const server = http.createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const id = /^\/push\/([0-9a-f-]+)$/.exec(request.url ?? '')?.[1];
      const subscriber = id ? subscribers.get(id) : undefined;
      if (request.method !== 'POST' || !id || !subscriber) {
        response.writeHead(404).end();
        return;
      }
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      const answer = subscriber.script.shift() ?? { status: 201 };
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (answer.status !== 201) {
        response.writeHead(answer.status, answer.headers).end(`scripted ${answer.status}`);
        return;
      }
      const reject = (status: number, reason: string) => {
        rejected.push({ subscriptionId: id, reason });
        response.writeHead(status).end(reason);
      };
      const ttl = Number(request.headers.ttl);
      if (!Number.isInteger(ttl) || ttl < 0) return reject(400, 'missing TTL');
      if (request.headers['content-encoding'] !== 'aes128gcm') return reject(415, 'not aes128gcm');
      let payload: unknown = null;
      if (verify) {
        const vapidProblem = await verifyVapid(request.headers.authorization, options.expectedVapidKey, origin);
        if (vapidProblem) return reject(403, vapidProblem);
        try {
          payload = JSON.parse(
            ece
              .decrypt(body, { version: 'aes128gcm', privateKey: subscriber.ecdh, authSecret: subscriber.auth })
              .toString('utf8'),
          );
        } catch (error) {
          return reject(400, `cannot decrypt: ${(error as Error).message}`);
        }
      }
      const topic = request.headers.topic;
      const urgency = request.headers.urgency;
      received.push({
        subscriptionId: id,
        payload,
        ttl,
        topic: typeof topic === 'string' ? topic : undefined,
        urgency: typeof urgency === 'string' ? urgency : undefined,
        receivedAt: Date.now(),
      });
      response.writeHead(201, { location: `${origin}/message/${randomUUID()}` }).end();
      for (const wake of waiters) wake();
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    received,
    rejected,
    attempts,
    subscribe() {
      const id = randomUUID();
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      subscribers.set(id, { ecdh, auth, script: [] });
      const token = JSON.stringify({
        endpoint: `${origin}/push/${id}`,
        expirationTime: null,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      });
      return { id, token };
    },
    script(subscriptionId, answers) {
      const subscriber = subscribers.get(subscriptionId);
      if (!subscriber) throw new Error(`no subscription ${subscriptionId}`);
      subscriber.script.push(...answers);
    },
    waitForReceived(count, timeoutMs, subscriptionId) {
      const matching = () =>
        received.filter((push) => subscriptionId === undefined || push.subscriptionId === subscriptionId);
      if (matching().length >= count) return Promise.resolve(matching());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`received ${matching().length} of ${count} pushes within ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          const found = matching();
          if (found.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
      });
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}

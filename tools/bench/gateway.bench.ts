// Gateway benchmark (not a test; it prints figures and ratios measured side by side in one run):
//   1. GET /api/pip/state requests per second (autocannon);
//   2. POST /api/pip/action -> SSE delivery latency, p50/p99 over every (action, stream) pair with
//      100 open /__pip/events streams;
//   3. /__backend proxy overhead: the same RPC through the gateway and straight to localbase,
//      p50 of sequential requests (interleaved, so drift hits both sides equally) and rps under
//      autocannon, as ratios.
// Run: node --import tsx tools/bench/gateway.bench.ts [--quick]
import http from 'node:http';
import { createRequire } from 'node:module';
import { buildGateway } from '#gateway/src/app.ts';
import { startLocalbaseStack } from '../testing/localbase-stack.ts';
import { makeFixtureRepo, makeTempDir, testConfig } from '#gateway/test/helpers.ts';

// autocannon ships no type declarations; this is the subset used here.
interface CannonOptions {
  url: string;
  duration?: number;
  connections?: number;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}
interface CannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: CannonOptions) => Promise<CannonResult>;

const quick = process.argv.includes('--quick');
const DURATION_S = quick ? 2 : 5;
const STREAMS = 100;
const ACTIONS = quick ? 100 : 300;
const PROXY_SAMPLES = quick ? 500 : 2_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function cannon(options: CannonOptions): Promise<CannonResult> {
  return autocannon({ duration: DURATION_S, connections: 10, ...options });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function timedRequest(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`HTTP ${response.statusCode} from ${url}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

interface Stream {
  close(): void;
}
function openStream(url: string, onAction: (id: number, receivedAt: number) => void): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const receivedAt = performance.now();
        buffer += chunk;
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          if (frame.startsWith('event: pip-action'))
            onAction(JSON.parse(frame.split('data: ')[1] ?? '{}').id, receivedAt);
        }
      });
      resolve({ close: () => request.destroy() });
    });
    request.on('error', reject);
  });
}

async function main(): Promise<void> {
  const temp = await makeTempDir('bench');
  const repoDir = await makeFixtureRepo(`${temp.dir}/repo`);
  const localbase = await startLocalbaseStack();
  const { app } = await buildGateway({
    // The relay's own cost, without codes: the open channel of PIP_PAIRING=off.
    config: testConfig(`${temp.dir}/logs`, { pipPairing: false }),
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    repoDir,
  });
  const gatewayUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`gateway ${gatewayUrl}, localbase ${localbase.url}, ${quick ? 'quick' : 'full'} run\n`);

  // 1. Snapshot reads.
  await fetch(`${gatewayUrl}/__pip/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      phase: 'focus',
      running: true,
      remainingMs: 60_000,
      completionAtMs: Date.now() + 60_000,
      subject: null,
      task: null,
      attempts: { correct: 0, incorrect: 0, skipped: 0 },
      target: null,
    }),
  });
  const state = await cannon({ url: `${gatewayUrl}/api/pip/state` });
  console.log(
    `GET /api/pip/state: ${Math.round(state.requests.average)} req/s (10 connections, ${DURATION_S} s), p50 ${state.latency.p50} ms, p99 ${state.latency.p99} ms, errors ${state.errors + state.non2xx}`,
  );

  // 2. Action -> SSE with 100 streams.
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  const streams = await Promise.all(
    Array.from({ length: STREAMS }, () =>
      openStream(`${gatewayUrl}/__pip/events`, (id, receivedAt) => {
        const sent = sentAt.get(id);
        if (sent !== undefined) latencies.push(receivedAt - sent);
      }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  // The relay numbers actions from 1, so each send time is known before any stream can answer.
  for (let index = 0; index < ACTIONS; index++) {
    sentAt.set(index + 1, performance.now());
    const response = await fetch(`${gatewayUrl}/api/pip/action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"action":"correct"}',
    });
    const { id, delivered } = (await response.json()) as { id: number; delivered: number };
    if (id !== index + 1 || delivered !== STREAMS)
      throw new Error(`action ${id} reached ${delivered} of ${STREAMS} streams`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const stream of streams) stream.close();
  const sortedEvents = latencies.sort((a, b) => a - b);
  console.log(
    `action -> SSE, ${STREAMS} streams, ${ACTIONS} actions: ${sortedEvents.length} deliveries timed, p50 ${fmt(percentile(sortedEvents, 50))}, p99 ${fmt(percentile(sortedEvents, 99))} (target p99 < 20 ms)`,
  );

  // 3. Proxy overhead on one RPC.
  const rpcBody = JSON.stringify({ payload: { sessions: [1, 2, 3], tasks: [1], settings: { a: 1 } } });
  const headers = { apikey: localbase.anonKey, authorization: `Bearer ${localbase.anonKey}` };
  const directUrl = `${localbase.url}/rest/v1/rpc/backup_richness`;
  const proxiedUrl = `${gatewayUrl}/__backend/rest/v1/rpc/backup_richness`;
  for (let warm = 0; warm < 100; warm++) {
    await timedRequest(directUrl, rpcBody, headers);
    await timedRequest(proxiedUrl, rpcBody, headers);
  }
  const direct: number[] = [];
  const proxied: number[] = [];
  for (let index = 0; index < PROXY_SAMPLES; index++) {
    direct.push(await timedRequest(directUrl, rpcBody, headers));
    proxied.push(await timedRequest(proxiedUrl, rpcBody, headers));
  }
  direct.sort((a, b) => a - b);
  proxied.sort((a, b) => a - b);
  const directP50 = percentile(direct, 50);
  const proxiedP50 = percentile(proxied, 50);
  console.log(
    `RPC backup_richness, sequential, ${PROXY_SAMPLES} each, interleaved: direct p50 ${fmt(directP50)} p99 ${fmt(percentile(direct, 99))} | via /__backend p50 ${fmt(proxiedP50)} p99 ${fmt(percentile(proxied, 99))}`,
  );
  console.log(
    `  proxy adds ${fmt(proxiedP50 - directP50)} at p50 (target < 1 ms); p50 ratio gateway/direct ${(proxiedP50 / directP50).toFixed(2)}`,
  );
  const cannonOptions = {
    method: 'POST' as const,
    body: rpcBody,
    headers: { ...headers, 'content-type': 'application/json' },
  };
  const directLoad = await cannon({ url: directUrl, ...cannonOptions });
  const proxiedLoad = await cannon({ url: proxiedUrl, ...cannonOptions });
  console.log(
    `RPC under load (10 connections, ${DURATION_S} s): direct ${Math.round(directLoad.requests.average)} req/s, via /__backend ${Math.round(proxiedLoad.requests.average)} req/s, ratio ${(proxiedLoad.requests.average / directLoad.requests.average).toFixed(2)}; errors ${directLoad.errors + directLoad.non2xx} / ${proxiedLoad.errors + proxiedLoad.non2xx}`,
  );

  agent.destroy();
  await app.close();
  await localbase.close();
  await temp.remove();
}

await main();

// Gateway load benchmark (not a test; it prints figures): `npm start` itself, in its own process on
// a fresh DATA_DIR, under
//   1. 1,000 event-stream clients on /__pip/events for 60 s while the phone posts an action every
//      250 ms: every action must reach every stream; delivery latency p50/p99; no stream dropped;
//   2. the backend proxy at a fixed 500 requests per second for 30 s: a data API read with a
//      student's token straight to localbase and then through /__backend (side by side: what the
//      database sustains here, and what the proxy adds), and localbase's auth health through the
//      proxy twice (the proxy path without the database): errors, non-2xx, latency p50/p99.
// The server's resident memory (VmRSS of its process) is read before, during and after each phase,
// so "memory stays flat" is a figure, not a belief.
// Run: node --import tsx tools/bench/gateway-load.bench.ts [--quick]   (quick: 10 s and 5 s)
//      LOCALBASE_ENGINE=pglite ... runs PGlite instead of the embedded PostgreSQL, and with it
//      STUDYHALL_PGLITE_THREAD=main runs PGlite on the server's thread instead of its worker.
// Also prints the machine's load average, since the figures mean little without it.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';
import { keysFile } from '#localbase';
import { MAX_EVENT_STREAMS_PER_ADDRESS } from '#gateway/src/pip/pip-relay.ts';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { freePort } from '../testing/free-port.ts';

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  duration: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: Record<string, unknown>,
) => Promise<CannonResult>;

const quick = process.argv.includes('--quick');
const STREAMS = 1_000;
const SSE_SECONDS = quick ? 10 : 60;
const ACTION_EVERY_MS = 250;
const PROXY_SECONDS = quick ? 5 : 30;
const PROXY_RATE = 500;

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the server under test: npm start ---------------------------------------------------------

const temp = await makeTempDir('load-bench');
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'gateway', 'src', 'main.ts')], {
  cwd: repoRoot,
  env: {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOCALBASE_PORT: String(await freePort()),
    DATA_DIR: path.join(temp.dir, 'data'),
    LOG_DIR: path.join(temp.dir, 'logs'),
    LOG_LEVEL: 'warn',
    // One open channel for 1,000 streams: the relay's cost without codes.
    PIP_PAIRING: 'off',
    // STUDYHALL_PGLITE_THREAD=main runs PGlite on the server's thread, to weigh its worker thread.
    ...(process.env.STUDYHALL_PGLITE_THREAD ? { STUDYHALL_PGLITE_THREAD: process.env.STUDYHALL_PGLITE_THREAD } : {}),
    // LOCALBASE_ENGINE=pglite runs the fallback engine instead of the embedded PostgreSQL.
    ...(process.env.LOCALBASE_ENGINE ? { LOCALBASE_ENGINE: process.env.LOCALBASE_ENGINE } : {}),
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let serverOutput = '';
server.stdout.on('data', (chunk) => (serverOutput += chunk));
server.stderr.on('data', (chunk) => (serverOutput += chunk));
const deadline = Date.now() + 180_000;
while (!serverOutput.includes('studyhall: logs')) {
  if (server.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${serverOutput}`);
  await sleep(200);
}
const pid = server.pid as number;
console.log(
  `npm start up (pid ${pid}) on ${baseUrl}; RSS ${(await rssMiB(pid)).toFixed(1)} MiB at boot; load average ${os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${os.cpus().length} cores`,
);

try {
  // ---- 1. 1,000 event streams ----------------------------------------------------------------
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  // Each action carries its own number as `target` (1, 2, 3, ...), so every delivery is matched to
  // the moment its action was sent, even while the POST's own answer is still on its way.
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  const received = new Array<number>(STREAMS).fill(0);
  let streamErrors = 0;
  let streamsClosed = 0;
  let phase1Over = false;
  const requests: http.ClientRequest[] = [];

  const openStream = (index: number) =>
    new Promise<void>((resolve, reject) => {
      // At most MAX_EVENT_STREAMS_PER_ADDRESS streams per address: each group of them comes from its
      // own loopback address (all of 127.0.0.0/8 reaches the server on Linux), as devices would.
      const localAddress = `127.0.${1 + Math.floor(index / MAX_EVENT_STREAMS_PER_ADDRESS)}.1`;
      const request = http.get(`${baseUrl}/__pip/events`, { agent: false, localAddress }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`stream ${index}: HTTP ${response.statusCode}`));
        let buffer = '';
        let helloSeen = false;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          const now = performance.now();
          buffer += chunk;
          let boundary: number;
          while ((boundary = buffer.indexOf('\n\n')) !== -1) {
            const frame = buffer.slice(0, boundary);
            buffer = buffer.slice(boundary + 2);
            if (frame.startsWith('event: hello') && !helloSeen) {
              helloSeen = true;
              resolve();
            } else if (frame.startsWith('event: pip-action')) {
              const target = JSON.parse(frame.split('data: ')[1] ?? '{}').target as number;
              const sent = sentAt.get(target);
              if (sent !== undefined) latencies.push(now - sent);
              received[index] = (received[index] ?? 0) + 1;
            }
          }
        });
        response.on('close', () => {
          if (!phase1Over) streamsClosed++;
        });
      });
      request.on('error', (error) => {
        if (!phase1Over) streamErrors++;
        reject(error);
      });
      requests.push(request);
    });

  const rssBeforeStreams = await rssMiB(pid);
  for (let start = 0; start < STREAMS; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, STREAMS - start) }, (_, offset) => openStream(start + offset)),
    );
  }
  const rssStreamsOpen = await rssMiB(pid);
  console.log(
    `${STREAMS} streams open; RSS ${rssBeforeStreams.toFixed(1)} MiB before, ${rssStreamsOpen.toFixed(1)} MiB with them open`,
  );

  const postAction = (sequence: number) =>
    new Promise<void>((resolve, reject) => {
      sentAt.set(sequence, performance.now());
      const request = http.request(
        `${baseUrl}/api/pip/action`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () =>
            response.statusCode === 202 ? resolve() : reject(new Error(`action: HTTP ${response.statusCode} ${body}`)),
          );
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ action: 'target', target: sequence }));
    });

  let actions = 0;
  let actionErrors = 0;
  const rssSamples: number[] = [];
  const phase1End = Date.now() + SSE_SECONDS * 1000;
  let nextSample = Date.now() + 10_000;
  while (Date.now() < phase1End) {
    const tick = Date.now();
    await postAction(actions + actionErrors + 1).then(
      () => actions++,
      () => actionErrors++,
    );
    if (Date.now() >= nextSample) {
      rssSamples.push(await rssMiB(pid));
      nextSample += 10_000;
    }
    await sleep(Math.max(0, ACTION_EVERY_MS - (Date.now() - tick)));
  }
  await sleep(1_000); // the last deliveries
  const rssEndStreams = await rssMiB(pid);
  phase1Over = true;
  for (const request of requests) request.destroy();
  await sleep(2_000);
  const rssAfterStreams = await rssMiB(pid);
  latencies.sort((a, b) => a - b);
  const missing = received.reduce((sum, count) => sum + Math.max(0, actions - count), 0);
  console.log(
    `SSE: ${STREAMS} streams x ${SSE_SECONDS} s, ${actions} actions (1 per ${ACTION_EVERY_MS} ms), ${latencies.length} deliveries timed, ` +
      `missing ${missing}, stream errors ${streamErrors}, streams dropped ${streamsClosed}, action errors ${actionErrors}`,
  );
  console.log(
    `SSE: action -> event p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(2)} ms`,
  );
  console.log(
    `SSE: RSS ${rssStreamsOpen.toFixed(1)} MiB at start, ${rssEndStreams.toFixed(1)} MiB at end ` +
      `(samples ${rssSamples.map((value) => value.toFixed(0)).join(', ')}), ${rssAfterStreams.toFixed(1)} MiB 2 s after the streams closed`,
  );

  // ---- 2. the proxy at 500 requests per second ------------------------------------------------
  const signup = await fetch(`${baseUrl}/__auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'load@example.com', password: 'load-password-1' }),
  });
  if (signup.status !== 201) throw new Error(`signup: HTTP ${signup.status} ${await signup.text()}`);
  const session = (await signup.json()) as { session: { access_token: string }; user: { id: string } };
  const authorization = { authorization: `Bearer ${session.session.access_token}` };
  const localbaseUrl = /studyhall: backend (\S+)/.exec(serverOutput)?.[1] as string;
  // The direct runs send localbase's anon key, as the gateway does for them (DATA_DIR/keys.json).
  const { anonKey } = JSON.parse(await readFile(keysFile(path.join(temp.dir, 'data')), 'utf8')) as { anonKey: string };
  const read = `/rest/v1/user_profiles?select=user_id,handle,display_name&user_id=eq.${session.user.id}`;
  // The same read straight to localbase first (side by side: what the database itself sustains
  // here), then through the proxy; then the proxy path without the database, twice, to see whether
  // memory grows with requests served.
  const targets = [
    {
      name: `GET ${read.split('?')[0]} straight to localbase (no gateway)`,
      url: `${localbaseUrl}${read}`,
      headers: { ...authorization, apikey: anonKey },
    },
    {
      name: `GET /__backend${read.split('?')[0]} (a student token, a database read)`,
      url: `${baseUrl}/__backend${read}`,
      headers: authorization,
    },
    {
      name: 'GET /__backend/auth/v1/health (the proxy path without the database), run 1',
      url: `${baseUrl}/__backend/auth/v1/health`,
      headers: {},
    },
    { name: 'GET /__backend/auth/v1/health, run 2', url: `${baseUrl}/__backend/auth/v1/health`, headers: {} },
  ];
  for (const target of targets) {
    await autocannon({ url: target.url, duration: 2, connections: 10, headers: target.headers }); // warm-up
    const rssBefore = await rssMiB(pid);
    const result = await autocannon({
      url: target.url,
      duration: PROXY_SECONDS,
      connections: 50,
      overallRate: PROXY_RATE,
      headers: target.headers,
    });
    const rssAfter = await rssMiB(pid);
    console.log(
      `proxy: ${target.name} at ${PROXY_RATE} req/s for ${PROXY_SECONDS} s: ${result.requests.total} requests, ` +
        `${(result.requests.total / result.duration).toFixed(0)} req/s achieved, errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}`,
    );
    console.log(
      `proxy:   latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms (corrected for coordinated omission)`,
    );
    console.log(`proxy:   RSS ${rssBefore.toFixed(1)} MiB at start, ${rssAfter.toFixed(1)} MiB at end`);
  }
  console.log(
    `load average at the end ${os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  await temp.remove();
}
// On demand, a snapshot opened for reads means one exchange held PGlite past db/pglite-engine.ts's
// STALL_AFTER_MS while a read waited. Kept open (the default), the server says at its close how many
// copies it opened: the first, and each refresh after writes, which is what the load costs there.
const onDemand = serverOutput.split('\n').filter((line) => line.includes('reads are answered from a snapshot')).length;
const kept = /(\d+) copies opened since the start/.exec(serverOutput)?.[1];
console.log(
  `embedded database: ${onDemand} snapshot(s) opened on demand` +
    (kept === undefined ? '' : `, ${kept} copies opened for the snapshot kept open`),
);

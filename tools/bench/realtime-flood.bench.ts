// Benchmark (not a test; it prints figures): a realtime broadcast flood against `npm start` itself
// (gateway/src/main.ts with its embedded localbase, in its own process, on a fresh DATA_DIR), and
// what it does to everybody else. The attack: S sockets through the gateway's /__backend with the
// anon key (anyone on the network can read it from /api/client-config), each joined to a public
// topic of its own with `broadcast.self`, each sending B broadcasts of K KiB back to back (by
// default 100 x 20 x 250 KiB, 500 MB; in a child process, as another machine would). Meanwhile,
// from this process:
//   ping  GET /__app/ping every 50 ms, each timed on its own (sent on schedule, never waiting for
//         the one before, so a stall shows in every request it delays): p50, p99, max.
//   chat  a student sends a chat line every second (POST /__backend/rest/v1/rpc/
//         community_send_group_message, as the app does), and another member of the group hears
//         it on the group's private chat topic through the gateway: time from just before the
//         request to the frame's arrival.
// The same first without the attack, as the baseline. Also printed: the server's CPU time in each
// window (user and system time of its process, all threads: what the flood costs it, whatever else
// the machine runs), the slowest pings and when they were sent, what the attackers got back
// (broadcast bytes, error replies, Realtime's system errors, closed channels and sockets) and the
// load average, since the machine is shared. Targets: ping p99 < 100 ms, each chat line within 1 s.
// Run: node --import tsx tools/bench/realtime-flood.bench.ts [--sockets 100] [--broadcasts 20]
//        [--kib 250] [--seconds 15]
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { z } from 'zod';
import { repoRoot } from '#db/paths.ts';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { freePort } from '../testing/free-port.ts';
import { openAttackers, type AttackReport } from './realtime-flood-attackers.ts';

const options = z
  .object({
    sockets: z.coerce.number().int().min(1).max(1000),
    broadcasts: z.coerce.number().int().min(1).max(1000),
    kib: z.coerce.number().int().min(1).max(1000),
    seconds: z.coerce.number().int().min(2).max(120),
  })
  .parse(
    parseArgs({
      options: {
        sockets: { type: 'string', default: '100' },
        broadcasts: { type: 'string', default: '20' },
        kib: { type: 'string', default: '250' },
        seconds: { type: 'string', default: '15' },
      },
    }).values,
  );

const PING_EVERY_MS = 50;
const CHAT_EVERY_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/** CPU seconds (user + system, all threads) the server process has used so far. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // utime and stime are the 14th and 15th fields; the command before them is in parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ
}

/** The nearest-rank percentile: the smallest value at or above `fraction` of the values. */
function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.max(0, Math.ceil(sorted.length * fraction) - 1)] ?? Number.NaN;
}

function summary(label: string, values: number[], failed = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  const figure = (value: number) => value.toFixed(1).padStart(8);
  return (
    `${label.padEnd(30)} n ${String(values.length).padStart(4)}  p50 ${figure(percentile(sorted, 0.5))} ms  ` +
    `p99 ${figure(percentile(sorted, 0.99))} ms  max ${figure(sorted.at(-1) ?? Number.NaN)} ms` +
    (failed > 0 ? `  ${failed} failed` : '')
  );
}

// ---- the server under test: npm start ---------------------------------------------------------

const temp = await makeTempDir('realtime-flood-bench');
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const backendUrl = `${baseUrl}/__backend`;
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

async function json<T>(response: Response, what: string): Promise<T> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function signUp(name: string): Promise<{ id: string; token: string }> {
  const body = await json<{ user: { id: string }; session: { access_token: string } }>(
    await fetch(`${baseUrl}/__auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: `${name}-${process.pid}@example.com`, password: `${name}-password-1` }),
    }),
    'signup',
  );
  return { id: body.user.id, token: body.session.access_token };
}

try {
  const { anon_key: anonKey } = await json<{ anon_key: string }>(
    await fetch(`${baseUrl}/api/client-config`),
    'client config',
  );
  const rpc = async <T>(token: string, name: string, args: object): Promise<T> =>
    json<T>(
      await fetch(`${backendUrl}/rest/v1/rpc/${name}`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(args),
      }),
      name,
    );

  // ---- two students of one group, the second listening to its chat topic ------------------------
  const [owner, member] = [await signUp('flood-owner'), await signUp('flood-member')];
  const [group] = await json<{ id: string }[]>(
    await fetch(`${backendUrl}/rest/v1/groups`, {
      method: 'POST',
      headers: {
        apikey: anonKey,
        authorization: `Bearer ${owner.token}`,
        'content-type': 'application/json',
        prefer: 'return=representation',
      },
      body: JSON.stringify({
        name: 'Flood Pharmacology',
        visibility: 'private',
        join_policy: 'invite',
        created_by: owner.id,
      }),
    }),
    'group',
  );
  const groupId = (group as { id: string }).id;
  const invite = await rpc<string>(owner.token, 'community_create_invite', { p_type: 'group', p_target_id: groupId });
  await rpc(member.token, 'community_redeem_invite', { p_token: invite });
  const topic = await rpc<string>(member.token, 'community_get_chat_topic', { p_group_id: groupId });

  const listener = new WebSocket(
    `${backendUrl.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${anonKey}&vsn=1.0.0`,
  );
  await new Promise((resolve, reject) => listener.once('open', resolve).once('error', reject));
  const heard = new Map<string, number>();
  const joined = new Promise<void>((resolve, reject) => {
    listener.on('message', (raw) => {
      const now = performance.now();
      const frame = JSON.parse(String(raw)) as {
        event: string;
        ref: string | null;
        payload: { status?: string; payload?: { record?: { content?: string } } };
      };
      if (frame.event === 'phx_reply' && frame.ref === 'join') {
        if (frame.payload.status === 'ok') resolve();
        else reject(new Error(`chat join refused: ${JSON.stringify(frame.payload)}`));
      } else if (frame.event === 'broadcast') {
        const content = frame.payload.payload?.record?.content;
        if (content !== undefined && !heard.has(content)) heard.set(content, now);
      }
    });
  });
  listener.send(
    JSON.stringify({
      topic: `realtime:${topic}`,
      event: 'phx_join',
      payload: { config: { private: true }, access_token: member.token },
      ref: 'join',
      join_ref: 'join',
    }),
  );
  await joined;

  /** One chat line: the time until the member heard it, or undefined past 10 s. */
  async function chatLine(content: string): Promise<number | undefined> {
    const started = performance.now();
    await rpc(owner.token, 'community_send_group_message', { p_group_id: groupId, p_content: content }).catch(
      () => undefined,
    );
    for (let waited = 0; !heard.has(content) && waited < 10_000; waited += 5) await sleep(5);
    const arrived = heard.get(content);
    return arrived === undefined ? undefined : arrived - started;
  }

  /** When each measured ping was sent (ms since the measurement began) and how long it took. */
  const slowest: { at: number; ms: number }[] = [];
  let measuringSince = 0;

  async function ping(): Promise<number | undefined> {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/__app/ping`).catch(() => undefined);
    await response?.arrayBuffer();
    if (!response?.ok) return undefined;
    const ms = performance.now() - started;
    slowest.push({ at: started - measuringSince, ms });
    return ms;
  }

  /** Pings on a fixed schedule and chat lines every second for `seconds`; all timed. */
  async function measure(label: string, seconds: number): Promise<{ pings: number[]; chat: number[] }> {
    const spanMs = seconds * 1000;
    const cpuBefore = await cpuSeconds(server.pid as number);
    const wallBefore = performance.now();
    slowest.length = 0;
    measuringSince = performance.now();
    const pinging = Promise.all(
      Array.from({ length: spanMs / PING_EVERY_MS }, (_, index) => sleep(index * PING_EVERY_MS).then(ping)),
    );
    const chatting = Promise.all(
      Array.from({ length: Math.floor(spanMs / CHAT_EVERY_MS) }, (_, index) =>
        sleep(index * CHAT_EVERY_MS + 100).then(() => chatLine(`${label} line ${index + 1}`)),
      ),
    );
    const [pings, chat] = await Promise.all([pinging, chatting]);
    const pingFailures = pings.filter((value) => value === undefined).length;
    const chatMissing = chat.filter((value) => value === undefined).length;
    const pingTimes = pings.filter((value): value is number => value !== undefined);
    const chatTimes = chat.filter((value): value is number => value !== undefined);
    console.log(summary(`ping, ${label}`, pingTimes, pingFailures));
    console.log(summary(`chat line heard, ${label}`, chatTimes, chatMissing));
    const cpu = (await cpuSeconds(server.pid as number)) - cpuBefore;
    const wall = (performance.now() - wallBefore) / 1000;
    console.log(
      `  the server's CPU time: ${cpu.toFixed(2)} s in ${wall.toFixed(1)} s (${((100 * cpu) / wall).toFixed(0)}% of one core)`,
    );
    const worst = [...slowest].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(
      `  slowest pings: ${worst.map((each) => `${each.ms.toFixed(0)} ms sent at +${each.at.toFixed(0)} ms`).join(', ')}`,
    );
    return { pings: pingTimes, chat: chatTimes };
  }

  console.log(
    `realtime flood: ${options.sockets} sockets x ${options.broadcasts} broadcasts x ${options.kib} KiB ` +
      `(${((options.sockets * options.broadcasts * options.kib) / 1024).toFixed(0)} MiB) against npm start ` +
      `(pid ${server.pid}); load average ${load()} on ${os.cpus().length} cores`,
  );
  for (let index = 0; index < 5; index += 1) await chatLine(`warm-up ${index}`);
  await measure('idle', Math.min(options.seconds, 5));

  const attackers = await openAttackers({
    backendUrl,
    anonKey,
    sockets: options.sockets,
    broadcasts: options.broadcasts,
    kib: options.kib,
  });
  console.log(`${options.sockets} attacking sockets joined; load average ${load()}`);
  attackers.go();
  const during = await measure('during the flood', options.seconds);
  const report: AttackReport = await attackers.report();
  attackers.close();
  listener.close();

  const late = during.chat.filter((ms) => ms > 1000).length;
  console.log(
    `the flood: sent ${(report.bytesSent / 2 ** 20).toFixed(1)} MiB in ${report.sendMs.toFixed(0)} ms; ` +
      `back ${report.broadcastsBack} broadcasts, ${(report.bytesBack / 2 ** 20).toFixed(1)} MiB; ` +
      `${report.errorReplies} error replies; system errors ${JSON.stringify(report.systemErrors)}; ` +
      `${report.channelsClosed} channels closed; ${report.socketsClosed} sockets closed`,
  );
  console.log(
    `targets: ping p99 ${percentile(
      [...during.pings].sort((a, b) => a - b),
      0.99,
    ).toFixed(1)} ms (< 100 ms), ` +
      `chat lines over 1 s: ${late} of ${during.chat.length}; load average at the end ${load()}`,
  );
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  await temp.remove();
}
process.exit(0);

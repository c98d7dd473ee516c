// Classroom benchmark (not a test; it prints figures): `npm start`'s compiled server on a fresh
// DATA_DIR, with a class of students who each keep a realtime socket on their group's chat (the
// private topic community_get_chat_topic names, through the gateway's /__backend proxy, as the
// app does) and, for the run's length, act every few seconds as the app would: read their tasks,
// write a task, post to their group's chat, ask the server's own ping. Every HTTP answer is timed
// on its own; every chat message must reach every member's socket.
// Prints: requests, errors (network or an unexpected status), latency p50/p90/p99/max overall and
// per kind, chat messages and deliveries expected / received / missed with their latency, the
// server's RSS and its postgres processes' PSS, and the load average (the machine is shared).
// Run: node --import tsx tools/bench/classroom.bench.ts [--students 500] [--groups 20]
//        [--seconds 120] [--every-ms 4000] [--engine postgres|pglite]
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { z } from 'zod';
import { repoRoot } from '#db/paths.ts';
import { keysFile } from '#localbase';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { freePort } from '../testing/free-port.ts';

const { values: flags } = parseArgs({
  options: {
    students: { type: 'string', default: '500' },
    groups: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '120' },
    'every-ms': { type: 'string', default: '4000' },
    engine: { type: 'string', default: 'postgres' },
  },
});
const options = z
  .object({
    students: z.coerce.number().int().min(2).max(5_000),
    groups: z.coerce.number().int().min(1).max(500),
    seconds: z.coerce.number().min(5).max(900),
    everyMs: z.coerce.number().min(100).max(60_000),
    engine: z.enum(['postgres', 'pglite']),
  })
  .parse({ ...flags, everyMs: flags['every-ms'] });
const EVERY_MS = options.everyMs;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

// ---- the server: npm start's compiled server ---------------------------------------------------

const temp = await makeTempDir('classroom-bench');
const port = await freePort();
const localbasePort = await freePort();
const gatewayUrl = `http://127.0.0.1:${port}`;
const localbaseUrl = `http://127.0.0.1:${localbasePort}`;
const dataDir = path.join(temp.dir, 'data');
const server = spawn(process.execPath, ['tools/build/start.mjs', 'gateway-main'], {
  cwd: repoRoot,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOCALBASE_PORT: String(localbasePort),
    DATA_DIR: dataDir,
    LOG_DIR: path.join(temp.dir, 'logs'),
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    LOCALBASE_ENGINE: options.engine,
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let serverOutput = '';
server.stdout.on('data', (chunk) => (serverOutput += chunk));
server.stderr.on('data', (chunk) => (serverOutput += chunk));
const serverExited = new Promise<void>((resolve) => server.once('exit', () => resolve()));

async function stopServer(): Promise<void> {
  if (server.exitCode === null) server.kill('SIGTERM');
  await serverExited;
  await rm(temp.dir, { recursive: true, force: true });
}

const upDeadline = Date.now() + 240_000;
while (!serverOutput.includes('studyhall: logs')) {
  if (server.exitCode !== null || Date.now() > upDeadline)
    throw new Error(`npm start did not come up:\n${serverOutput}`);
  await sleep(100);
}
// Whatever happens below, the server (and its PostgreSQL) is stopped and its folder removed.
process.on('exit', () => server.exitCode === null && server.kill('SIGTERM'));
try {
  await lesson();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await stopServer();
}
process.exit();

async function lesson(): Promise<void> {
  const keys = JSON.parse(await readFile(keysFile(dataDir), 'utf8')) as { anonKey: string };
  console.log(
    `classroom bench: ${options.students} students in ${options.groups} groups, ${options.seconds} s, one action per student every ~${EVERY_MS} ms`,
  );
  console.log(
    serverOutput
      .split('\n')
      .filter((line) => line.startsWith('studyhall: engine'))
      .join('\n'),
  );

  // ---- timed HTTP --------------------------------------------------------------------------------

  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  interface Answer {
    status: number;
    body: string;
    ms: number;
  }

  function call(
    base: string,
    method: string,
    route: string,
    token: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const started = performance.now();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve) => {
      const outgoing = http.request(
        `${base}${route}`,
        {
          method,
          agent,
          headers: {
            apikey: keys.anonKey,
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(payload ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: text, ms: performance.now() - started }),
          );
        },
      );
      outgoing.on('error', (error) => resolve({ status: 0, body: error.message, ms: performance.now() - started }));
      outgoing.end(payload);
    });
  }

  async function must(answer: Promise<Answer>, what: string): Promise<string> {
    const { status, body } = await answer;
    if (status < 200 || status >= 300) throw new Error(`${what}: ${status} ${body.slice(0, 300)}`);
    return body;
  }

  // ---- the class ---------------------------------------------------------------------------------

  interface Student {
    index: number;
    id: string;
    token: string;
    group: number;
    socket?: WebSocket;
  }

  const students: Student[] = [];
  const setupStarted = performance.now();
  // Straight to localbase: the gateway's sign-up is limited per address, and this is the class arriving.
  for (let start = 0; start < options.students; start += 8) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, options.students - start) }, async (_, offset) => {
        const index = start + offset;
        const body = await must(
          call(localbaseUrl, 'POST', '/auth/v1/signup', undefined, {
            email: `student-${index}-${process.pid}@classroom.test`,
            password: `a classroom passphrase ${index}`,
          }),
          'signup',
        );
        const session = JSON.parse(body) as { access_token: string; user: { id: string } };
        return { index, id: session.user.id, token: session.access_token, group: index % options.groups };
      }),
    );
    students.push(...batch);
  }
  const groupIds: string[] = [];
  for (let group = 0; group < options.groups; group += 1) {
    const owner = students[group] as Student;
    const body = await must(
      call(
        gatewayUrl,
        'POST',
        '/__backend/rest/v1/groups?select=id',
        owner.token,
        { name: `Classroom group ${group}`, visibility: 'public', join_policy: 'open', created_by: owner.id },
        { prefer: 'return=representation' },
      ),
      'group',
    );
    groupIds.push((JSON.parse(body) as { id: string }[])[0]?.id as string);
  }
  for (let start = options.groups; start < students.length; start += 16) {
    await Promise.all(
      students.slice(start, start + 16).map((student) =>
        must(
          call(gatewayUrl, 'POST', '/__backend/rest/v1/rpc/community_join_group', student.token, {
            p_group_id: groupIds[student.group],
          }),
          'join',
        ),
      ),
    );
  }
  const topics = await Promise.all(
    groupIds.map(
      async (groupId, group) =>
        JSON.parse(
          await must(
            call(gatewayUrl, 'POST', '/__backend/rest/v1/rpc/community_get_chat_topic', students[group]?.token, {
              p_group_id: groupId,
            }),
            'topic',
          ),
        ) as string,
    ),
  );

  /** Per chat message (by its number): when it was sent, and the arrival time at each member's socket. */
  const messages = new Map<number, { group: number; sentAt: number; arrivals: Map<number, number> }>();
  const MESSAGE_MARK = /classroom message (\d+)\b/;

  async function openSocket(student: Student): Promise<void> {
    const socket = new WebSocket(
      `${gatewayUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?apikey=${keys.anonKey}&vsn=2.0.0`,
    );
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const joined = new Promise<void>((resolve, reject) => {
      socket.on('message', (raw) => {
        const now = performance.now();
        const [, , , event, payload] = JSON.parse(String(raw)) as [
          unknown,
          unknown,
          string,
          string,
          { status?: string },
        ];
        if (event === 'phx_reply' && payload.status === 'ok') resolve();
        else if (event === 'phx_reply') reject(new Error(`join refused: ${String(raw)}`));
        else if (event === 'broadcast') {
          const number = Number(MESSAGE_MARK.exec(String(raw))?.[1]);
          const message = messages.get(number);
          if (message && !message.arrivals.has(student.index)) message.arrivals.set(student.index, now);
        }
      });
    });
    socket.send(
      JSON.stringify([
        '1',
        '1',
        `realtime:${topics[student.group]}`,
        'phx_join',
        {
          config: { private: true, broadcast: { self: false }, presence: { enabled: false } },
          access_token: student.token,
        },
      ]),
    );
    await joined;
    student.socket = socket;
    // Phoenix's heartbeat, so the socket stays open as realtime-js keeps it.
    setInterval(
      () =>
        socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify([null, 'hb', 'phoenix', 'heartbeat', {}])),
      25_000,
    ).unref();
  }

  for (let start = 0; start < students.length; start += 25)
    await Promise.all(students.slice(start, start + 25).map(openSocket));
  const membersOf = (group: number) => students.filter((student) => student.group === group);
  console.log(`set up in ${((performance.now() - setupStarted) / 1000).toFixed(0)} s; load average ${loadAverage()}`);

  // ---- the lesson --------------------------------------------------------------------------------

  type Kind = 'read tasks' | 'write task' | 'chat message' | 'ping';
  const timings = new Map<Kind, number[]>();
  const errors: string[] = [];
  let messageNumber = 0;

  function record(kind: Kind, answer: Answer, expected: number): void {
    const list = timings.get(kind) ?? [];
    list.push(answer.ms);
    timings.set(kind, list);
    if (answer.status !== expected) errors.push(`${kind}: ${answer.status} ${answer.body.slice(0, 200)}`);
  }

  async function act(student: Student): Promise<void> {
    const roll = Math.random();
    if (roll < 0.5) {
      record(
        'read tasks',
        await call(
          gatewayUrl,
          'GET',
          '/__backend/rest/v1/user_tasks?select=*&order=created_at.desc&limit=20',
          student.token,
        ),
        200,
      );
    } else if (roll < 0.75) {
      record(
        'write task',
        await call(gatewayUrl, 'POST', '/__backend/rest/v1/user_tasks', student.token, {
          user_id: student.id,
          title: `task ${Date.now()}`,
        }),
        201,
      );
    } else if (roll < 0.9) {
      messageNumber += 1;
      const number = messageNumber;
      messages.set(number, { group: student.group, sentAt: performance.now(), arrivals: new Map() });
      record(
        'chat message',
        await call(gatewayUrl, 'POST', '/__backend/rest/v1/rpc/community_send_group_message', student.token, {
          p_group_id: groupIds[student.group],
          p_content: `classroom message ${number} from ${student.index}`,
        }),
        200,
      );
    } else {
      record('ping', await call(gatewayUrl, 'GET', '/__app/ping', undefined), 200);
    }
  }

  const lessonEnds = performance.now() + options.seconds * 1000;
  await Promise.all(
    students.map(async (student) => {
      // Spread over the first interval, then one action every EVERY_MS (give or take a quarter).
      await sleep(Math.random() * EVERY_MS);
      while (performance.now() < lessonEnds) {
        const next = performance.now() + EVERY_MS * (0.75 + Math.random() / 2);
        await act(student);
        await sleep(Math.max(0, next - performance.now()));
      }
    }),
  );
  const loadAtEnd = loadAverage();
  await sleep(5_000); // the last deliveries

  // ---- figures -----------------------------------------------------------------------------------

  function percentile(sorted: number[], fraction: number): number {
    return sorted[Math.max(0, Math.ceil(sorted.length * fraction) - 1)] ?? Number.NaN;
  }
  function line(label: string, values: number[]): string {
    const sorted = [...values].sort((a, b) => a - b);
    return `${label.padEnd(16)} n ${String(sorted.length).padStart(6)}  p50 ${percentile(sorted, 0.5).toFixed(1).padStart(7)} ms  p90 ${percentile(sorted, 0.9).toFixed(1).padStart(7)} ms  p99 ${percentile(sorted, 0.99).toFixed(1).padStart(7)} ms  max ${(sorted.at(-1) ?? 0).toFixed(1).padStart(8)} ms`;
  }

  async function pssOfPostgres(rootPid: number): Promise<number> {
    const pending = [rootPid];
    let kb = 0;
    while (pending.length > 0) {
      const pid = pending.pop() as number;
      const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
      for (const task of tasks) {
        const children = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
        pending.push(...children.trim().split(/\s+/).filter(Boolean).map(Number));
      }
      const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
      if (comm !== 'postgres') continue;
      const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
      kb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    }
    return kb / 1024;
  }

  const all = [...timings.values()].flat();
  console.log(line('all requests', all));
  for (const [kind, values] of timings) console.log(line(kind, values));
  let expected = 0;
  let received = 0;
  const deliveryMs: number[] = [];
  for (const message of messages.values()) {
    const members = membersOf(message.group);
    expected += members.length;
    received += message.arrivals.size;
    for (const at of message.arrivals.values()) deliveryMs.push(at - message.sentAt);
  }
  console.log(line('chat delivery', deliveryMs));
  console.log(
    `errors ${errors.length}${errors.length ? ` (first: ${errors[0]})` : ''}; chat: ${messages.size} messages, ${expected} deliveries expected, ${received} received, ${expected - received} missed`,
  );
  const status = await readFile(`/proc/${server.pid}/status`, 'utf8').catch(() => '');
  console.log(
    `server RSS ${(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024).toFixed(0)} MB, postgres PSS ${(await pssOfPostgres(server.pid as number)).toFixed(0)} MB; load average at the end ${loadAtEnd} on ${os.cpus().length} cores`,
  );

  for (const student of students) student.socket?.close();
}

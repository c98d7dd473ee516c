// Classroom benchmark (not a test; it prints figures): `npm start`'s compiled server on a fresh
// DATA_DIR, with a class of students who each keep a realtime socket on their group's chat (the
// private topic community_get_chat_topic names, through the gateway's /__backend proxy, as the
// app does) and, for the run's length, act every few seconds as the app would: read their tasks,
// write a task, post to their group's chat, ask the server's own ping. Every HTTP answer is timed
// on its own; every chat message must reach every member's socket, once.
// With --servers N (2 or more), a district: N servers on one PostgreSQL (the product's embedded
// engine, started by the bench, handed to each as DATABASE_URL; the keys file of the first copied
// to the others' DATA_DIR) behind a loopback round-robin proxy (round-robin-proxy.ts), which spreads
// the requests and the sockets over them; with --kill-after S, the last server is killed (SIGKILL)
// S seconds into the lesson: its students' sockets reconnect through the proxy, and at the end every
// acknowledged write is looked for in the database.
// Prints: requests, errors (network or an unexpected status; with a kill, those cut by it apart),
// latency p50/p90/p99/max overall and per kind, chat messages and deliveries expected / received /
// missed / duplicated with their latency, the servers' RSS and postgres PSS, and the load average
// (the machine is shared).
// Run: node --import tsx tools/bench/classroom.bench.ts [--students 500] [--groups 20]
//        [--seconds 120] [--every-ms 4000] [--engine postgres|pglite] [--servers 2] [--kill-after 60]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
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
import { shareKeys, startSharedPostgres, type SharedPostgres } from '../testing/shared-postgres.ts';
import { forkRoundRobinProxy, type ForkedRoundRobinProxy } from './round-robin-proxy.ts';

const { values: flags } = parseArgs({
  options: {
    students: { type: 'string', default: '500' },
    groups: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '120' },
    'every-ms': { type: 'string', default: '4000' },
    engine: { type: 'string', default: 'postgres' },
    servers: { type: 'string', default: '1' },
    'kill-after': { type: 'string' },
  },
});
const options = z
  .object({
    students: z.coerce.number().int().min(2).max(5_000),
    groups: z.coerce.number().int().min(1).max(500),
    seconds: z.coerce.number().min(5).max(900),
    everyMs: z.coerce.number().min(100).max(60_000),
    engine: z.enum(['postgres', 'pglite']),
    servers: z.coerce.number().int().min(1).max(4),
    killAfter: z.coerce.number().min(1).optional(),
  })
  .refine((parsed) => parsed.killAfter === undefined || parsed.servers > 1, {
    message: '--kill-after needs --servers 2 or more: one server must survive',
  })
  .refine((parsed) => parsed.servers === 1 || parsed.engine === 'postgres', {
    message: 'several servers share a PostgreSQL, not PGlite',
  })
  .parse({ ...flags, everyMs: flags['every-ms'], killAfter: flags['kill-after'] });
const EVERY_MS = options.everyMs;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

// ---- the servers: npm start's compiled server ----------------------------------------------------

interface Server {
  name: string;
  process: ChildProcess;
  dataDir: string;
  gatewayUrl: string;
  localbaseUrl: string;
  output: string;
  exited: Promise<void>;
}

const temp = await makeTempDir('classroom-bench');
const servers: Server[] = [];
let shared: SharedPostgres | undefined;
let proxy: ForkedRoundRobinProxy | undefined;

async function startServer(name: string, databaseUrl: string): Promise<Server> {
  const port = await freePort();
  const localbasePort = await freePort();
  const dataDir = path.join(temp.dir, name, 'data');
  await mkdir(dataDir, { recursive: true });
  const child = spawn(process.execPath, ['tools/build/start.mjs', 'gateway-main'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOCALBASE_PORT: String(localbasePort),
      DATA_DIR: dataDir,
      LOG_DIR: path.join(temp.dir, name, 'logs'),
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      LOCALBASE_ENGINE: options.engine,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server: Server = {
    name,
    process: child,
    dataDir,
    gatewayUrl: `http://127.0.0.1:${port}`,
    localbaseUrl: `http://127.0.0.1:${localbasePort}`,
    output: '',
    exited: new Promise<void>((resolve) => child.once('exit', () => resolve())),
  };
  child.stdout?.on('data', (chunk) => (server.output += chunk));
  child.stderr?.on('data', (chunk) => (server.output += chunk));
  servers.push(server);
  const upDeadline = Date.now() + 240_000;
  while (!server.output.includes('studyhall: logs')) {
    if (child.exitCode !== null || Date.now() > upDeadline)
      throw new Error(`npm start (${name}) did not come up:\n${server.output}`);
    await sleep(100);
  }
  return server;
}

async function stopServers(): Promise<void> {
  for (const server of servers) if (server.process.exitCode === null) server.process.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.exited));
  await proxy?.close();
  await shared?.close();
  await rm(temp.dir, { recursive: true, force: true });
}

// Whatever happens below, the servers (and their PostgreSQL) are stopped and the folder removed.
process.on('exit', () => {
  for (const server of servers) if (server.process.exitCode === null) server.process.kill('SIGTERM');
});
try {
  if (options.servers === 1) {
    await startServer('server', '');
  } else {
    shared = await startSharedPostgres();
    // One after the other: the first installs what the database needs, and its keys go to the others.
    const first = await startServer('server-1', shared.url);
    for (let index = 2; index <= options.servers; index += 1) {
      await shareKeys(first.dataDir, path.join(temp.dir, `server-${index}`, 'data'));
      await startServer(`server-${index}`, shared.url);
    }
    proxy = await forkRoundRobinProxy(servers.map((server) => server.gatewayUrl));
  }
  await lesson();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await stopServers();
}
process.exit();

async function lesson(): Promise<void> {
  const first = servers[0] as Server;
  const keys = JSON.parse(await readFile(keysFile(first.dataDir), 'utf8')) as { anonKey: string };
  // The class reaches the servers through the proxy when there are several.
  const gatewayUrl = proxy?.url ?? first.gatewayUrl;
  // Straight to the first server's localbase: the gateway's sign-up is limited per address, and this
  // is the class arriving.
  const localbaseUrl = first.localbaseUrl;
  console.log(
    `classroom bench: ${options.students} students in ${options.groups} groups, ${options.seconds} s, one action per student every ~${EVERY_MS} ms` +
      (options.servers > 1
        ? `; ${options.servers} servers on one PostgreSQL behind a round-robin proxy` +
          (options.killAfter ? `, the last killed (SIGKILL) ${options.killAfter} s in` : '')
        : ''),
  );
  console.log(
    first.output
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
    /** When her socket was closed under her until it had joined again (a server killed). */
    gaps?: { from: number; to: number }[];
  }

  const students: Student[] = [];
  const setupStarted = performance.now();
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

  /**
   * Per chat message (by its number): when it was sent, whether the server acknowledged it, the
   * first arrival at each member's socket, and how many arrivals each member had (more than one is
   * a duplicate).
   */
  interface Message {
    group: number;
    sentAt: number;
    acknowledged: boolean;
    arrivals: Map<number, number>;
    copies: Map<number, number>;
  }
  const messages = new Map<number, Message>();
  const MESSAGE_MARK = /classroom message (\d+)\b/;
  let lessonOver = false;

  async function openSocket(student: Student): Promise<void> {
    const socket = new WebSocket(
      `${gatewayUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?apikey=${keys.anonKey}&vsn=2.0.0`,
    );
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const joined = new Promise<void>((resolve, reject) => {
      socket.once('close', () => reject(new Error('the socket closed before it joined')));
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
          if (!message) return;
          if (!message.arrivals.has(student.index)) message.arrivals.set(student.index, now);
          message.copies.set(student.index, (message.copies.get(student.index) ?? 0) + 1);
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
    // A socket closed under her (its server killed) is opened again through the proxy, as
    // realtime-js reconnects: until it has joined, what her group says may pass her by.
    socket.once('close', () => {
      if (lessonOver) return;
      const gap = { from: performance.now(), to: Number.POSITIVE_INFINITY };
      (student.gaps ??= []).push(gap);
      void (async () => {
        while (!lessonOver) {
          await sleep(200 + Math.random() * 800);
          try {
            await openSocket(student);
            gap.to = performance.now();
            return;
          } catch {
            // The proxy had no server to give her yet: try again.
          }
        }
      })();
    });
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
  /** Requests under way when a server was killed that got no answer (cut with their connection). */
  const cut: string[] = [];
  let messageNumber = 0;
  let taskNumber = 0;
  const acknowledgedTasks: string[] = [];
  let killedAt: number | undefined;

  /** With a kill: every request's time, by whether it was sent before the kill or after it. */
  const sentBeforeKill: number[] = [];
  const sentAfterKill: number[] = [];

  function record(kind: Kind, answer: Answer, expected: number): void {
    const list = timings.get(kind) ?? [];
    list.push(answer.ms);
    timings.set(kind, list);
    const startedAt = performance.now() - answer.ms;
    (killedAt === undefined || startedAt <= killedAt ? sentBeforeKill : sentAfterKill).push(answer.ms);
    if (answer.status === expected) return;
    // No answer, or the proxy's 502 for a connection its server dropped.
    const underWayAtKill =
      killedAt !== undefined && startedAt <= killedAt && (answer.status === 0 || answer.status === 502);
    (underWayAtKill ? cut : errors).push(`${kind}: ${answer.status} ${answer.body.slice(0, 200)}`);
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
      taskNumber += 1;
      const title = `classroom task ${taskNumber} of ${student.index}`;
      const answer = await call(gatewayUrl, 'POST', '/__backend/rest/v1/user_tasks', student.token, {
        user_id: student.id,
        title,
      });
      record('write task', answer, 201);
      if (answer.status === 201) acknowledgedTasks.push(title);
    } else if (roll < 0.9) {
      messageNumber += 1;
      const number = messageNumber;
      const message: Message = {
        group: student.group,
        sentAt: performance.now(),
        acknowledged: false,
        arrivals: new Map(),
        copies: new Map(),
      };
      messages.set(number, message);
      const answer = await call(
        gatewayUrl,
        'POST',
        '/__backend/rest/v1/rpc/community_send_group_message',
        student.token,
        { p_group_id: groupIds[student.group], p_content: `classroom message ${number} from ${student.index}` },
      );
      record('chat message', answer, 200);
      message.acknowledged = answer.status === 200;
    } else {
      record('ping', await call(gatewayUrl, 'GET', '/__app/ping', undefined), 200);
    }
  }

  const lessonEnds = performance.now() + options.seconds * 1000;
  const victim = servers.at(-1) as Server;
  const killTimer =
    options.killAfter === undefined
      ? undefined
      : setTimeout(() => {
          killedAt = performance.now();
          victim.process.kill('SIGKILL');
          console.log(`killed ${victim.name} (SIGKILL) at ${options.killAfter} s; load average ${loadAverage()}`);
        }, options.killAfter * 1000);
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
  clearTimeout(killTimer);
  const loadAtEnd = loadAverage();
  // The last deliveries: until none has arrived for SETTLE_MS (on a loaded machine realtime may run
  // seconds behind the requests), at most SETTLE_LIMIT_MS.
  const SETTLE_MS = 5_000;
  const SETTLE_LIMIT_MS = 120_000;
  const arrivals = () => [...messages.values()].reduce((sum, message) => sum + message.arrivals.size, 0);
  const settleLimit = performance.now() + SETTLE_LIMIT_MS;
  for (let before = -1; before !== arrivals() && performance.now() < settleLimit;) {
    before = arrivals();
    await sleep(SETTLE_MS);
  }
  lessonOver = true;

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
  // A message the server acknowledged is owed to every member of its group, unless it never reached
  // her and her socket was closed at some time after it was sent (a socket of a killed server is
  // closed at once: what its server had not relayed yet is lost with it, and realtime replays
  // nothing after a reconnect). One that was not acknowledged (cut by a kill) may or may not have
  // been written: it is owed to nobody, and counted if it arrives.
  const owed = (student: Student, message: Message) =>
    message.acknowledged &&
    (message.copies.has(student.index) || !(student.gaps ?? []).some((gap) => gap.to >= message.sentAt));
  let expected = 0;
  let received = 0;
  let missed = 0;
  let duplicated = 0;
  let excused = 0;
  const deliveryMs: number[] = [];
  for (const message of messages.values()) {
    for (const member of membersOf(message.group)) {
      const copies = message.copies.get(member.index) ?? 0;
      duplicated += Math.max(0, copies - 1);
      if (!owed(member, message)) {
        excused += 1;
        continue;
      }
      expected += 1;
      if (copies === 0) missed += 1;
      else received += 1;
    }
    for (const at of message.arrivals.values()) deliveryMs.push(at - message.sentAt);
  }
  console.log(line('chat delivery', deliveryMs));
  if (killedAt !== undefined) {
    console.log(line('sent before kill', sentBeforeKill));
    console.log(line('sent after kill', sentAfterKill));
  }
  const reconnected = students.filter((student) => (student.gaps ?? []).length > 0);
  console.log(
    `errors ${errors.length}${errors.length ? ` (first: ${errors[0]})` : ''}` +
      (killedAt !== undefined
        ? `; requests cut by the kill ${cut.length}${cut.length ? ` (first: ${cut[0]})` : ''}`
        : '') +
      `; chat: ${messages.size} messages (${[...messages.values()].filter((message) => message.acknowledged).length} acknowledged), ${expected} deliveries expected, ${received} received, ${missed} missed, ${duplicated} duplicated` +
      (excused
        ? `; ${excused} not owed (not received by a member whose socket closed after the sending, or not acknowledged)`
        : ''),
  );
  if (killedAt !== undefined) {
    const gaps = reconnected.flatMap((student) => student.gaps ?? []);
    const closedFor = gaps.map((gap) => gap.to - gap.from).filter(Number.isFinite);
    console.log(
      `after the kill: ${reconnected.length} students' sockets closed, ${closedFor.length} joined again; ` +
        line('closed for', closedFor).trim(),
    );
  }
  if (shared) {
    // Every acknowledged write is in the database, whichever server took it.
    const tasks = await shared.database.pool.query<{ count: string }>(
      'select count(*) from public.user_tasks where title = any($1::text[])',
      [acknowledgedTasks],
    );
    const contents = [...messages.entries()]
      .filter(([, message]) => message.acknowledged)
      .map(([number]) => `classroom message ${number} from `);
    const stored = await shared.database.pool.query<{ content: string }>(
      "select content from public.group_chat_messages where content like 'classroom message %'",
    );
    const storedNumbers = new Set(stored.rows.map((row) => Number(MESSAGE_MARK.exec(row.content)?.[1])));
    const lostMessages = contents.filter((content) => !storedNumbers.has(Number(MESSAGE_MARK.exec(content)?.[1])));
    console.log(
      `acknowledged writes: ${acknowledgedTasks.length} tasks, ${Number(tasks.rows[0]?.count)} in the database; ` +
        `${contents.length} chat messages, ${contents.length - lostMessages.length} in the database`,
    );
    console.log(
      `requests and sockets per server (through the proxy): ${[
        ...((await proxy?.counts()) ?? new Map<string, number>()),
      ]
        .map(([url, count]) => `${servers.find((server) => server.gatewayUrl === url)?.name ?? url} ${count}`)
        .join(', ')}`,
    );
  }
  for (const server of servers) {
    const status = await readFile(`/proc/${server.process.pid}/status`, 'utf8').catch(() => '');
    if (!status) continue;
    console.log(
      `${server.name} RSS ${(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024).toFixed(0)} MB` +
        (shared ? '' : `, postgres PSS ${(await pssOfPostgres(server.process.pid as number)).toFixed(0)} MB`),
    );
  }
  if (shared) console.log(`shared postgres PSS ${(await pssOfPostgres(process.pid)).toFixed(0)} MB`);
  console.log(`load average at the end ${loadAtEnd} on ${os.cpus().length} cores`);

  for (const student of students) student.socket?.close();
}

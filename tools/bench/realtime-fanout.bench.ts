// Benchmark: realtime fan-out on localbase, on PGlite and on the default engine, the embedded
// PostgreSQL (db/embedded-postgres.ts, in a temp DATA_DIR, with the product's pool), side by side;
// or on Debian's PostgreSQL 15 (tools/pg/cluster.ts) with --engine cluster. PGlite runs as the
// product runs it: in its worker thread (db/pglite-engine.ts), started from the test database's
// snapshot, so the server's thread is free while a check runs. Three cases:
//   fan-out  a chat message (an INSERT on public.group_chat_messages by a member, through the Data
//            API) delivered to N subscribers: N sockets, each a signed-in member of the group with
//            a postgres_changes channel on it; then the same message deleted by its sender
//            (delete_chat_message: an UPDATE to a tombstone, which the members get as an UPDATE).
//   broadcast the same messages, heard as the chat hears them: on the group's private topic
//            (community_get_chat_topic), which the database sends every new or deleted message to,
//            and which a policy on realtime.messages lets the group's members join (Supabase's
//            Realtime Authorization, asked once per join rather than once per subscriber and change).
//            Latency from just before the request is sent to the frame's arrival, per socket; p50,
//            p99 and max over every (message, socket). The sockets live in a child process, as
//            real clients live elsewhere, and stamp arrivals on a clock both processes share
//            (--clients in-process: in the server's own process, as before).
//   flood    one socket (a member) sends J phx_join frames for channels listening to everything;
//            then a chat message goes to one other member: how long the joins took to be
//            answered, how many were accepted, the message's delivery latency, and a Data API read
//            sent right after the INSERT (does the server stall?).
// With --compare <dir>, the same run also measures the localbase of another checkout (for example
// the commit before a change: `git archive <commit> tools supabase | tar -x -C .tmp/before`),
// side by side on the same database, users and machine. Not a test: it never fails on a time.
//   node --import tsx tools/bench/realtime-fanout.bench.ts [--subscribers 200] [--messages 30]
//     [--joins 10000] [--engine both|pglite|default|cluster] [--clients child|in-process] [--compare .tmp/before]
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { z } from 'zod';
import { MEMORY, openDatabase, type Database } from '#db/database.ts';
import type { Localbase, LocalbaseOptions } from '#localbase';
import { startLocalbase } from '#localbase';
import { startCluster } from '../pg/cluster.ts';
import { makeReachableTempDir } from '../testing/reachable-temp-dir.ts';
import { testDatabaseSnapshot } from '../testing/test-database.ts';
import { openChildSubscribers, openSubscribers, sharedNow, type JoinRequest } from './realtime-fanout-subscribers.ts';

const options = z
  .object({
    subscribers: z.coerce.number().int().min(1).max(2000),
    messages: z.coerce.number().int().min(1).max(1000),
    joins: z.coerce.number().int().min(1).max(100_000),
    engine: z.enum(['both', 'pglite', 'default', 'cluster']),
    clients: z.enum(['child', 'in-process']),
    compare: z.string().optional(),
  })
  .parse(
    parseArgs({
      options: {
        subscribers: { type: 'string', default: '200' },
        messages: { type: 'string', default: '30' },
        joins: { type: 'string', default: '10000' },
        engine: { type: 'string', default: 'both' },
        clients: { type: 'string', default: 'child' },
        compare: { type: 'string' },
      },
    }).values,
  );

const FLOOD_MESSAGES = 3;
const WARMUP_MESSAGES = 3;

type Start = (options: LocalbaseOptions) => Promise<Localbase>;

interface Variant {
  name: string;
  start: Start;
}

interface Member {
  id: string;
  token: string;
}

interface World {
  owner: Member;
  members: Member[];
  groupId: string;
}

interface Summary {
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

function summary(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

async function api<T>(localbase: Localbase, route: string, token: string, body?: unknown): Promise<T> {
  const response = await fetch(`${localbase.url}${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      apikey: localbase.anonKey,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      prefer: 'return=representation',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${route}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function signUp(localbase: Localbase, name: string): Promise<Member> {
  const session = await api<{ access_token: string; user: { id: string } }>(
    localbase,
    '/auth/v1/signup',
    localbase.anonKey,
    {
      email: `${name}-${process.pid}@bench.test`,
      password: `bench-${name}-password`,
    },
  );
  return { id: session.user.id, token: session.access_token };
}

/** The owner's group and N members in it, made through the API once per database. */
async function makeWorld(localbase: Localbase, count: number): Promise<World> {
  const owner = await signUp(localbase, 'owner');
  const [group] = await api<{ id: string }[]>(localbase, '/rest/v1/groups?select=id', owner.token, {
    name: 'Fan-out Hall',
    visibility: 'public',
    join_policy: 'open',
    created_by: owner.id,
  });
  const groupId = group?.id as string;
  const members: Member[] = [];
  // A few at a time: each sign-up hashes a password (bcrypt), which is CPU for the server's thread.
  for (let start = 0; start < count + 1; start += 8) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, count + 1 - start) }, (_, index) =>
        signUp(localbase, `member-${start + index}`),
      ),
    );
    await Promise.all(
      batch.map((member) => api(localbase, '/rest/v1/rpc/community_join_group', member.token, { p_group_id: groupId })),
    );
    members.push(...batch);
  }
  return { owner, members, groupId };
}

/** A raw socket (serializer 2.0.0) that stamps each frame's arrival. */
async function openSocket(localbase: Localbase) {
  const socket = new WebSocket(
    `${localbase.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${localbase.anonKey}&vsn=2.0.0`,
  );
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const replies = { ok: 0, error: 0 };
  const arrivals = new Map<string, number>();
  socket.on('message', (data) => {
    const now = performance.now();
    const [, , , event, payload] = JSON.parse(String(data)) as [
      unknown,
      unknown,
      string,
      string,
      { status?: string; data?: { record?: { content?: string } } },
    ];
    if (event === 'phx_reply' && payload.status === 'ok') replies.ok += 1;
    else if (event === 'phx_reply') replies.error += 1;
    else if (event === 'postgres_changes') {
      const content = payload.data?.record?.content;
      if (content !== undefined && !arrivals.has(content)) arrivals.set(content, now);
    }
  });
  const join = (topic: string, ref: string, token: string, binding: Record<string, string>) =>
    socket.send(
      JSON.stringify([ref, ref, topic, 'phx_join', { config: { postgres_changes: [binding] }, access_token: token }]),
    );
  return { socket, replies, arrivals, join };
}

async function until(done: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

let messageCounter = 0;

/** Sends one chat message as `sender` through the Data API; answers when it was sent. */
async function sendMessage(
  localbase: Localbase,
  world: World,
  sender: Member,
): Promise<{ content: string; sentAt: number; answeredMs: number }> {
  messageCounter += 1;
  const content = `fan-out message ${messageCounter}`;
  const sentAt = performance.now();
  await api(localbase, '/rest/v1/group_chat_messages', sender.token, {
    group_id: world.groupId,
    sender_id: sender.id,
    content,
  });
  return { content, sentAt, answeredMs: performance.now() - sentAt };
}

interface FanOutResult {
  insert: Summary;
  insertAnswer: Summary;
  update: Summary;
  updateAnswer: Summary;
}

/** Sends a chat message, then deletes it (an UPDATE to a tombstone), each timed to every subscriber. */
async function fanOut(localbase: Localbase, world: World, mode: 'changes' | 'broadcast'): Promise<FanOutResult> {
  const filter = `group_id=eq.${world.groupId}`;
  const chatTopic = await api<string>(localbase, '/rest/v1/rpc/community_get_chat_topic', world.owner.token, {
    p_group_id: world.groupId,
  });
  const request: JoinRequest = {
    url: localbase.url,
    anonKey: localbase.anonKey,
    tokens: world.members.slice(0, options.subscribers).map((member) => member.token),
    topic: mode === 'broadcast' ? `realtime:${chatTopic}` : 'realtime:group-chat',
    bindings:
      mode === 'broadcast'
        ? []
        : [
            { event: 'INSERT', schema: 'public', table: 'group_chat_messages', filter },
            { event: 'UPDATE', schema: 'public', table: 'group_chat_messages', filter },
          ],
    private: mode === 'broadcast',
  };
  const subscribers =
    options.clients === 'child' ? await openChildSubscribers(request) : await openSubscribers(request);
  const result = {
    insert: [] as number[],
    insertAnswer: [] as number[],
    update: [] as number[],
    updateAnswer: [] as number[],
  };
  try {
    for (let index = 0; index < WARMUP_MESSAGES + options.messages; index += 1) {
      messageCounter += 1;
      const sentAt = sharedNow();
      const [row] = await api<{ id: string }[]>(localbase, '/rest/v1/group_chat_messages', world.owner.token, {
        group_id: world.groupId,
        sender_id: world.owner.id,
        content: `fan-out message ${messageCounter}`,
      });
      const insertAnswer = sharedNow() - sentAt;
      const id = row?.id as string;
      const inserted = await subscribers.arrivals(`INSERT:${id}`, 120_000);
      const deletedAt = sharedNow();
      await api(localbase, '/rest/v1/rpc/delete_chat_message', world.owner.token, { p_message_id: id });
      const updateAnswer = sharedNow() - deletedAt;
      const updated = await subscribers.arrivals(`UPDATE:${id}`, 120_000);
      if (index < WARMUP_MESSAGES) continue;
      result.insert.push(...inserted.map((stamp) => stamp - sentAt));
      result.insertAnswer.push(insertAnswer);
      result.update.push(...updated.map((stamp) => stamp - deletedAt));
      result.updateAnswer.push(updateAnswer);
    }
    return {
      insert: summary(result.insert),
      insertAnswer: summary(result.insertAnswer),
      update: summary(result.update),
      updateAnswer: summary(result.updateAnswer),
    };
  } finally {
    subscribers.close();
  }
}

interface FloodResult {
  accepted: number;
  refused: number;
  joinsMs: number;
  delivery: Summary;
  read: Summary;
}

async function flood(localbase: Localbase, world: World): Promise<FloodResult> {
  const [attacker, listener] = world.members as [Member, Member];
  const flooding = await openSocket(localbase);
  const victim = await openSocket(localbase);
  try {
    victim.join('realtime:victim', '1', listener.token, {
      event: 'INSERT',
      schema: 'public',
      table: 'group_chat_messages',
      filter: `group_id=eq.${world.groupId}`,
    });
    await until(() => victim.replies.ok === 1, 'victim joined', 10_000);
    const started = performance.now();
    for (let index = 0; index < options.joins; index += 1)
      flooding.join(`realtime:x${index}`, String(index), attacker.token, { event: '*', schema: '*' });
    await until(() => flooding.replies.ok + flooding.replies.error >= options.joins, 'join replies', 300_000);
    const joinsMs = performance.now() - started;
    const delivery: number[] = [];
    const reads: number[] = [];
    for (let index = 0; index < FLOOD_MESSAGES; index += 1) {
      const { content, sentAt } = await sendMessage(localbase, world, world.owner);
      // A read right after the write, while the change is being delivered.
      const readAt = performance.now();
      await api(localbase, '/rest/v1/groups?select=id&limit=1', listener.token);
      reads.push(performance.now() - readAt);
      await until(() => victim.arrivals.has(content), `flood message ${content} delivered`, 300_000);
      delivery.push((victim.arrivals.get(content) as number) - sentAt);
    }
    return {
      accepted: flooding.replies.ok,
      refused: flooding.replies.error,
      joinsMs,
      delivery: summary(delivery),
      read: summary(reads),
    };
  } finally {
    flooding.socket.close();
    victim.socket.close();
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

async function runEngine(engine: string, database: Database, variants: Variant[]): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'realtime-fanout-bench-'));
  let world: World | undefined;
  try {
    for (const variant of variants) {
      const localbase = await variant.start({ dataDir, database, port: 0, logger: false });
      try {
        world ??= await makeWorld(localbase, options.subscribers);
        const fanned = await fanOut(localbase, world, 'changes');
        const broadcast = await fanOut(localbase, world, 'broadcast');
        const flooded = await flood(localbase, world);
        const line = (what: string, delivery: Summary, answer: Summary) =>
          `  ${what} to ${options.subscribers} sockets (${options.clients}), ${options.messages} messages: p50 ${ms(delivery.p50)}, p99 ${ms(delivery.p99)}, max ${ms(delivery.max)}` +
          ` (target p99 < 50 ms: ${delivery.p99 < 50 ? 'met' : 'missed'}); the request's own answer: p50 ${ms(answer.p50)}, p99 ${ms(answer.p99)}\n`;
        console.log(
          `${engine}, ${variant.name} (load average ${loadavg()[0]?.toFixed(1)})\n` +
            line('INSERT fan-out', fanned.insert, fanned.insertAnswer) +
            line('UPDATE fan-out', fanned.update, fanned.updateAnswer) +
            line('INSERT on the chat topic', broadcast.insert, broadcast.insertAnswer) +
            line('UPDATE on the chat topic', broadcast.update, broadcast.updateAnswer) +
            `  flood of ${options.joins} joins on one socket: ${flooded.accepted} accepted, ${flooded.refused} refused, all answered in ${ms(flooded.joinsMs)}\n` +
            `    then a message to another member (${FLOOD_MESSAGES}): p50 ${ms(flooded.delivery.p50)}, max ${ms(flooded.delivery.max)};` +
            ` a read sent right after each: p50 ${ms(flooded.read.p50)}, max ${ms(flooded.read.max)}`,
        );
      } finally {
        await localbase.close();
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const variants: Variant[] = [{ name: 'this checkout', start: startLocalbase }];
  if (options.compare) {
    const server = path.resolve(options.compare, 'localbase/server.ts');
    const compared = (await import(server)) as { startLocalbase: Start };
    variants.push({ name: `compared: ${options.compare}`, start: compared.startLocalbase });
  }
  console.log(
    `realtime fan-out benchmark: ${options.subscribers} subscribers, ${options.messages} messages, ${options.joins} joins on one socket`,
  );

  if (options.engine === 'both' || options.engine === 'pglite') {
    const database = await openDatabase({
      dataDir: MEMORY,
      migrate: false,
      pglite: { loadDataDir: await testDatabaseSnapshot() },
    });
    try {
      await runEngine('PGlite', database, variants);
    } finally {
      await database.close();
    }
  }
  if (options.engine === 'both' || options.engine === 'default') {
    const dataDir = await makeReachableTempDir('realtime-fanout-bench-pg-');
    const database = await openDatabase({ dataDir, engine: 'postgres' });
    try {
      if (!database.postgres) throw new Error(`the default engine is not PostgreSQL here: ${database.notice}`);
      await runEngine(database.engineName ?? 'embedded PostgreSQL', database, variants);
    } finally {
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  if (options.engine === 'cluster') {
    const cluster = await startCluster();
    const database = await openDatabase({ databaseUrl: cluster.url, maxConnections: 10, migrate: false });
    try {
      await runEngine('PostgreSQL 15', database, variants);
    } finally {
      await database.close();
      await cluster.stop();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

// Two studyhall servers on one PostgreSQL, as a district runs them behind a load balancer: each its
// own localbase on the shared DATABASE_URL and its own gateway, on ports of their own, with the same
// keys (DATA_DIR's keys.json copied from the first to the second). Realtime across them, through the
// gateways' /__backend as the app reaches it: a chat message sent through server A reaches a member
// whose socket is on server B once, on the group's private chat topic (as the app's chat hears it)
// and as a postgres_changes row; a member on A hears it once too; an outsider on B, subscribed to the
// same rows, hears nothing.
import path from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ws from 'ws';
import { startLocalbase, type Localbase } from '#localbase';
import { shareKeys, startSharedPostgres, type SharedPostgres } from '#tools/testing/shared-postgres.ts';
import { makeTempDir, RELAXED_DEADLINES, startTestGateway, type TestGateway } from './helpers.ts';

interface Server {
  localbase: Localbase;
  gateway: TestGateway;
  /** The gateway's /__backend, where the app's supabase-js points. */
  backendUrl: string;
}

interface Student {
  client: SupabaseClient;
  id: string;
}

/** What one channel heard: each chat message's id, as often as it arrived. */
interface Heard {
  ids: string[];
}

/** After a message arrived, how long the test keeps listening for a second copy of it. */
const REPEAT_WATCH_MS = 2_000;

let shared: SharedPostgres;
let temp: { dir: string; remove(): Promise<void> };
let serverA: Server;
let serverB: Server;
let groupId: string;
let owner: Student;
let memberOnA: Student;
let memberOnB: Student;
let outsiderOnB: Student;

async function startServer(name: string): Promise<Server> {
  const localbase = await startLocalbase({
    dataDir: path.join(temp.dir, name),
    databaseUrl: shared.url,
    port: 0,
    logger: false,
  });
  const gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    ...RELAXED_DEADLINES,
  });
  const url = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { localbase, gateway, backendUrl: `${url}/__backend` };
}

/** supabase-js as the app makes it, pointed at a server's /__backend. */
function clientOf(server: Server): SupabaseClient {
  return createClient(server.backendUrl, server.localbase.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: ws as never },
  });
}

async function signUp(server: Server, name: string): Promise<Student> {
  const client = clientOf(server);
  const { data, error } = await client.auth.signUp({
    email: `${name}-${process.pid}@two-servers.test`,
    password: `a passphrase for ${name}`,
  });
  if (error || !data.user || !data.session) throw new Error(`sign-up of ${name} failed: ${error?.message}`);
  // Private channels join with the student's token, handed over before the first one joins.
  await client.realtime.setAuth(data.session.access_token);
  return { client, id: data.user.id };
}

function subscribed(channel: ReturnType<SupabaseClient['channel']>): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(error ?? new Error(status));
    });
  });
}

/** Joins the group's private chat topic as the app's chat does, keeping every new message's id. */
async function hearChatTopic(student: Student): Promise<Heard> {
  const topic = await student.client.rpc('community_get_chat_topic', { p_group_id: groupId });
  if (topic.error) throw new Error(`chat topic: ${topic.error.message}`);
  const heard: Heard = { ids: [] };
  const channel = student.client
    .channel(topic.data as string, { config: { private: true } })
    .on('broadcast', { event: 'INSERT' }, ({ payload }) => {
      heard.ids.push(String((payload as { record: { id: string } }).record.id));
    });
  await subscribed(channel);
  return heard;
}

/** Subscribes to the group's chat rows as postgres_changes, keeping every inserted row's id. */
async function hearChatRows(student: Student): Promise<Heard> {
  const heard: Heard = { ids: [] };
  const channel = student.client
    .channel(`chat-rows-${Math.random()}`)
    .on(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'group_chat_messages', filter: `group_id=eq.${groupId}` },
      (payload) => heard.ids.push(String(payload.new.id)),
    );
  await subscribed(channel);
  return heard;
}

async function sendThroughA(content: string): Promise<string> {
  const sent = await owner.client.rpc('community_send_group_message', { p_group_id: groupId, p_content: content });
  if (sent.error) throw new Error(`send: ${sent.error.message}`);
  return String((sent.data as { id: string }).id);
}

async function until(done: () => boolean, what: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  shared = await startSharedPostgres();
  temp = await makeTempDir('two-servers');
  serverA = await startServer('a');
  await shareKeys(serverA.localbase.dataDir, path.join(temp.dir, 'b'));
  serverB = await startServer('b');
  owner = await signUp(serverA, 'owner');
  memberOnA = await signUp(serverA, 'member-on-a');
  memberOnB = await signUp(serverB, 'member-on-b');
  outsiderOnB = await signUp(serverB, 'outsider-on-b');
  const group = await owner.client
    .from('groups')
    .insert({ name: 'Two Rooms Chemistry', visibility: 'public', join_policy: 'open', created_by: owner.id })
    .select('id')
    .single();
  if (group.error) throw new Error(`group: ${group.error.message}`);
  groupId = (group.data as { id: string }).id;
  for (const member of [memberOnA, memberOnB]) {
    const joined = await member.client.rpc('community_join_group', { p_group_id: groupId });
    if (joined.error) throw new Error(`join: ${joined.error.message}`);
  }
}, 300_000);

afterAll(async () => {
  for (const student of [owner, memberOnA, memberOnB, outsiderOnB]) await student?.client.removeAllChannels();
  for (const server of [serverB, serverA]) {
    await server?.gateway.close();
    await server?.localbase.close();
  }
  await shared?.close();
  await temp?.remove();
}, 120_000);

describe('realtime across two servers on one database', () => {
  it('the servers share the database and the keys: a student signed up on A is signed in on B', async () => {
    expect(serverA.localbase.anonKey).toBe(serverB.localbase.anonKey);
    const profile = await memberOnA.client.auth.getUser();
    expect(profile.data.user?.id).toBe(memberOnA.id);
    const elsewhere = clientOf(serverB);
    const session = (await memberOnA.client.auth.getSession()).data.session;
    const onB = await elsewhere.auth.getUser(session?.access_token);
    expect(onB.data.user?.id).toBe(memberOnA.id);
  });

  it("delivers a chat message sent through A once to a member on B and once to one on A, on the group's chat topic", async () => {
    const onB = await hearChatTopic(memberOnB);
    const onA = await hearChatTopic(memberOnA);
    const first = await sendThroughA('titration at 10 in room B?');
    const second = await sendThroughA('bring goggles');
    await until(
      () => onB.ids.length >= 2 && onA.ids.length >= 2,
      () => `both messages heard on both servers; sent ${first}, ${second}; heard on A [${onA.ids}], on B [${onB.ids}]`,
    );
    await new Promise((resolve) => setTimeout(resolve, REPEAT_WATCH_MS));
    expect(onB.ids).toEqual([first, second]);
    expect(onA.ids).toEqual([first, second]);
  });

  it('delivers the chat row once to a member on B by postgres_changes, and never to an outsider on B', async () => {
    const memberHears = await hearChatRows(memberOnB);
    const outsiderHears = await hearChatRows(outsiderOnB);
    const id = await sendThroughA('the answer key is up');
    await until(
      () => memberHears.ids.length >= 1,
      () => `the row ${id} heard by the member on B; heard [${memberHears.ids}]`,
    );
    await new Promise((resolve) => setTimeout(resolve, REPEAT_WATCH_MS));
    expect(memberHears.ids).toEqual([id]);
    expect(outsiderHears.ids).toEqual([]);
  });
});

// Anyone on the network with the anon key (the app hands it out) floods realtime: 30 sockets
// through the gateway, each joined to a public topic of its own with `broadcast.self`, each sending
// 20 broadcasts of 250 KiB back to back (150 MB). With no limits the server read, parsed and sent back every
// byte: 100 such sockets (500 MB) held `/__app/ping` for half a minute and a chat line as long
// (tools/bench/README-realtime-flood.md). Now localbase limits what a connection and the whole
// server may send, as hosted Realtime limits a project: each flooding connection gets Realtime's
// system error "Too many messages per second" on its channel and is closed, what it sent past the
// limit is dropped unread, and the gateway's proxy reads no faster than a budget meanwhile. The
// server keeps answering, and another student's chat line arrives at once. The deadlines here are
// loose (the machine is shared); the bench measures the figures.
// On PostgreSQL 15 in `npm test`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import { signedUpClient } from '#localbase/test/clients.ts';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { openRawSocket, type RawSocket } from './realtime-raw-socket.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const SOCKETS = 30;
const BROADCASTS = 20;
const PAYLOAD_BYTES = 250 * 1024;
/** "Still answering": the unflooded answer takes milliseconds; before the limits, seconds. */
const ANSWER_DEADLINE_MS = 1_000;

const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;
let gatewayUrl: string;
let backendUrl: string;

beforeAll(async () => {
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    ...RELAXED_DEADLINES,
  });
  gatewayUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  backendUrl = `${gatewayUrl}/__backend`;
}, 120_000);

afterAll(async () => {
  await gateway?.close();
});

/** A student of a group listening to its chat topic through the gateway, and a way to post to it. */
async function chatListener() {
  const [owner, member] = [
    await signedUpClient(localbase, 'flood-owner'),
    await signedUpClient(localbase, 'flood-member'),
  ];
  const created = await owner.client
    .from('groups')
    .insert({ name: 'Flooded Biochemistry', visibility: 'private', join_policy: 'invite', created_by: owner.id })
    .select('id')
    .single();
  if (created.error) throw new Error(`group creation failed: ${created.error.message}`);
  const groupId = (created.data as { id: string }).id;
  const invite = await owner.client.rpc('community_create_invite', { p_type: 'group', p_target_id: groupId });
  await member.client.rpc('community_redeem_invite', { p_token: invite.data });
  const topic = (await member.client.rpc('community_get_chat_topic', { p_group_id: groupId })).data as string;
  const token = (await member.client.auth.getSession()).data.session?.access_token as string;
  const socket = await openRawSocket(backendUrl, localbase.anonKey);
  socket.send(`realtime:${topic}`, 'phx_join', { config: { private: true }, access_token: token }, 'chat');
  expect((await socket.replyTo('chat')).payload.status).toBe('ok');
  return {
    socket,
    /** Posts a line and answers how long the member took to hear it. */
    async say(content: string): Promise<number> {
      const started = performance.now();
      const sent = await owner.client.rpc('community_send_group_message', { p_group_id: groupId, p_content: content });
      expect(sent.error).toBeNull();
      await socket.waitFor(
        () =>
          socket.frames.some((frame) => (frame.payload.payload?.record as { content?: string })?.content === content),
        `the chat line "${content}"`,
        30_000,
      );
      return performance.now() - started;
    },
  };
}

async function timedPing(): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${gatewayUrl}/__app/ping`);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return performance.now() - started;
}

describe('attack: a flood of large realtime broadcasts', () => {
  it("ends each flooding connection with Realtime's error, drops the flood, and keeps answering everybody else", async () => {
    const chat = await chatListener();
    const attackers: RawSocket[] = [];
    for (let index = 0; index < SOCKETS; index += 1) {
      const attacker = await openRawSocket(backendUrl, localbase.anonKey);
      attacker.send(`realtime:flood-${index}`, 'phx_join', { config: { broadcast: { self: true } } }, 'join');
      expect((await attacker.replyTo('join')).payload.status).toBe('ok');
      attackers.push(attacker);
    }
    const blob = 'x'.repeat(PAYLOAD_BYTES);
    let sentBytes = 0;
    const flooding = (async () => {
      for (let sent = 0; sent < BROADCASTS; sent += 1) {
        for (const [index, attacker] of attackers.entries()) {
          const frame = { type: 'broadcast', event: 'flood', payload: { sent, blob } };
          attacker.send(`realtime:flood-${index}`, 'broadcast', frame, `b${sent}`);
          sentBytes += PAYLOAD_BYTES;
          // The server runs in this process: framing the flood must not hold it as the flood would.
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    })();

    // While it floods: the server answers, and a chat line is heard.
    const pings: number[] = [];
    const heard: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      pings.push(await timedPing());
      heard.push(await chat.say(`during the flood ${round}`));
      // The rounds are spread over the flood on the real clock.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await flooding;
    expect(Math.max(...pings)).toBeLessThan(ANSWER_DEADLINE_MS);
    expect(Math.max(...heard)).toBeLessThan(ANSWER_DEADLINE_MS);

    // Every flooding connection is closed in the end (the proxy's read budget lets their frames reach
    // localbase a few sockets a second, and each is ended as its frames arrive past the limits).
    await chat.socket.waitFor(
      () => attackers.every((attacker) => attacker.closed()),
      'every flooding socket closed',
      60_000,
    );

    // Most of the flood was dropped, not relayed back: counted once every flooding socket is closed,
    // when nothing more can come back to them.
    const relayed =
      PAYLOAD_BYTES *
      attackers.reduce(
        (total, attacker) => total + attacker.frames.filter((frame) => frame.event === 'broadcast').length,
        0,
      );
    expect(relayed).toBeLessThan(sentBytes / 4);

    // Every flooding connection was told why, on its channel, before it was closed.
    for (const [index, attacker] of attackers.entries()) {
      const system = attacker.frames.find((frame) => frame.event === 'system');
      expect(system?.payload).toEqual({
        extension: 'system',
        status: 'error',
        message: 'Too many messages per second',
        channel: `flood-${index}`,
      });
      expect(attacker.frames.some((frame) => frame.event === 'phx_close')).toBe(true);
    }
    chat.socket.socket.close();
  }, 180_000);
});

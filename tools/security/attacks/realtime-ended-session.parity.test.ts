// A student keeps her realtime channels open after her access was taken away: she is banned, she
// (or someone holding her account) signs out everywhere, or her access token expires (here, 28 s
// before the channel joined: still inside the 30 s clock skew a join allows). Her socket, through
// the gateway as any client's, holds the group's private chat topic (the database sends the chat
// there) and a postgres_changes channel on the chat table. Each channel was checked when it joined,
// and the chat topic was never asked again: she kept hearing the group's next messages. Now every
// delivery checks the channel's token: a channel whose session ended, whose user is banned or
// whose token expired gets Realtime's own `system` error and `phx_close` instead of the message,
// while another member hears it. On PGlite in `npm test`, on PostgreSQL 15 in `test:pg`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import type { Localbase } from '#localbase';
import { clientFor, signedUpClient } from '#localbase/test/clients.ts';
import { tokenExpiredAgo } from '#localbase/test/realtime-tokens.ts';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { openRawSocket, type RawSocket, type SeenFrame } from './realtime-raw-socket.ts';

type Student = Awaited<ReturnType<typeof signedUpClient>>;

let localbase: Localbase;
let gateway: TestGateway;
let backendUrl: string;
let owner: Student;
let groupId: string;

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    ...RELAXED_DEADLINES,
  });
  backendUrl = `${await gateway.app.listen({ host: '127.0.0.1', port: 0 })}/__backend`;
  owner = await signedUpClient(localbase, 'ended-owner');
  const created = await owner.client
    .from('groups')
    .insert({ name: 'Ended Sessions Histology', visibility: 'private', join_policy: 'invite', created_by: owner.id })
    .select('id')
    .single();
  if (created.error) throw new Error(`group creation failed: ${created.error.message}`);
  groupId = (created.data as { id: string }).id;
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await localbase?.close();
});

/** A new member of the group, by the owner's invite, with her access token. */
async function member(name: string): Promise<Student & { token: string }> {
  const student = await signedUpClient(localbase, name);
  const invite = await owner.client.rpc('community_create_invite', { p_type: 'group', p_target_id: groupId });
  const redeemed = await student.client.rpc('community_redeem_invite', { p_token: invite.data });
  if (redeemed.error) throw new Error(`redeem failed: ${redeemed.error.message}`);
  const token = (await student.client.auth.getSession()).data.session?.access_token;
  if (!token) throw new Error(`${name} has no session`);
  return { ...student, token };
}

async function chatTopic(student: Student): Promise<string> {
  const { data, error } = await student.client.rpc('community_get_chat_topic', { p_group_id: groupId });
  if (error) throw new Error(`no chat topic: ${error.message}`);
  return `realtime:${data as string}`;
}

const CHANGES_TOPIC = 'realtime:chat-changes';

/** Joins the chat topic (private) and a postgres_changes channel on the chat table, with `token`. */
async function listen(socket: RawSocket, topic: string, token: string): Promise<void> {
  socket.send(topic, 'phx_join', { config: { private: true }, access_token: token }, 'chat');
  const changes = {
    config: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'group_chat_messages' }] },
    access_token: token,
  };
  socket.send(CHANGES_TOPIC, 'phx_join', changes, 'changes');
  expect((await socket.replyTo('chat')).payload.status).toBe('ok');
  expect((await socket.replyTo('changes')).payload.status).toBe('ok');
}

const carries = (content: string) => (frame: SeenFrame) =>
  frame.payload.payload?.record !== undefined
    ? (frame.payload.payload.record as { content?: string }).content === content
    : frame.payload.data?.record?.content === content;

async function sendMessage(content: string): Promise<void> {
  const sent = await owner.client.rpc('community_send_group_message', { p_group_id: groupId, p_content: content });
  expect(sent.error).toBeNull();
}

const service = () => clientFor(localbase, localbase.serviceRoleKey);

describe('attack: realtime channels kept open after access ended', () => {
  it.each([
    [
      'banned by an admin',
      async (student: Student & { token: string }) => {
        const banned = await service().auth.admin.updateUserById(student.id, { ban_duration: '24h' });
        expect(banned.error).toBeNull();
        return student.token;
      },
      /^The session of this token has ended$/,
    ],
    [
      'signed out everywhere (POST /auth/v1/logout?scope=global)',
      async (student: Student & { token: string }) => {
        const response = await fetch(`${backendUrl}/auth/v1/logout?scope=global`, {
          method: 'POST',
          headers: { apikey: localbase.anonKey, authorization: `Bearer ${student.token}` },
        });
        expect(response.status).toBe(204);
        return student.token;
      },
      /^The session of this token has ended$/,
    ],
    [
      'whose access token expired (28 s before joining, inside the clock skew)',
      async (student: Student & { token: string }) => tokenExpiredAgo(localbase, student.token, 28),
      /^Token has expired \d+ seconds ago$/,
    ],
  ])(
    "hears nothing more once %s: both channels are closed with Realtime's system error, another member hears on",
    async (how, endAccess, reason) => {
      const [leaving, staying] = await Promise.all([member('ended-leaving'), member('ended-staying')]);
      const topic = await chatTopic(leaving);
      const stayer = await openRawSocket(backendUrl, localbase.anonKey);
      const attacker = await openRawSocket(backendUrl, localbase.anonKey);
      try {
        await listen(stayer, topic, staying.token);
        const expiring = how.startsWith('whose') ? await endAccess(leaving) : leaving.token;
        await listen(attacker, topic, expiring);
        if (!how.startsWith('whose')) await endAccess(leaving);

        await sendMessage(`next message (${how})`);
        await stayer.waitFor(
          () => stayer.frames.filter(carries(`next message (${how})`)).length === 2,
          'the message on both of the other member’s channels',
        );
        // Time for a late copy of the message, were there one.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(attacker.frames.filter(carries(`next message (${how})`)).map((frame) => frame.topic)).toEqual([]);
        const closes = () => attacker.frames.filter((frame) => frame.event === 'phx_close');
        await attacker.waitFor(() => closes().length === 2, 'both channels closed', 5_000);
        for (const closed of [topic, CHANGES_TOPIC]) {
          const system = attacker.frames.find(
            (frame) => frame.topic === closed && frame.event === 'system' && frame.payload.status === 'error',
          );
          expect(system?.payload).toEqual({
            extension: 'system',
            status: 'error',
            message: expect.stringMatching(reason),
            channel: closed.replace(/^realtime:/, ''),
          });
          const order = attacker.frames.filter((frame) => frame.topic === closed).map((frame) => frame.event);
          expect(order.slice(-2)).toEqual(['system', 'phx_close']);
        }
        // The socket itself stays usable, and nothing reaches the closed channels any more.
        attacker.send('phoenix', 'heartbeat', {}, 'beat');
        expect((await attacker.replyTo('beat')).payload.status).toBe('ok');
        await sendMessage(`later message (${how})`);
        await stayer.waitFor(() => stayer.frames.some(carries(`later message (${how})`)), 'the later message');
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(attacker.frames.filter(carries(`later message (${how})`))).toEqual([]);
      } finally {
        stayer.socket.close();
        attacker.socket.close();
      }
    },
    60_000,
  );

  it('closes a channel holding a stale token at the next message; joined again with the refreshed token, it hears on', async () => {
    const student = await member('ended-refreshing');
    const topic = await chatTopic(student);
    const socket = await openRawSocket(backendUrl, localbase.anonKey);
    try {
      await listen(socket, topic, await tokenExpiredAgo(localbase, student.token, 28));
      await sendMessage('while the token is stale');
      await socket.waitFor(
        () => socket.frames.filter((frame) => frame.event === 'phx_close').length === 2,
        'both channels closed',
      );
      // As realtime-js does with a client that holds a fresh token: join again with it.
      const fresh = (await student.client.auth.refreshSession()).data.session?.access_token as string;
      socket.send(topic, 'phx_join', { config: { private: true }, access_token: fresh }, 'again');
      expect((await socket.replyTo('again')).payload.status).toBe('ok');
      await sendMessage('after the rejoin');
      await socket.waitFor(() => socket.frames.some(carries('after the rejoin')), 'the message after the rejoin');
    } finally {
      socket.socket.close();
    }
  });
});

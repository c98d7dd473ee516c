// One socket against realtime: a member of a study group opens one WebSocket through the gateway
// and sends 10,000 phx_join frames, each for a channel of its own listening to every change of
// every table. Without a bound each join was one more subscription every captured change had to be
// checked for, one database transaction each, and on PGlite those checks queued on the server's
// one thread: a single chat message stalled the gateway for seconds. Now the socket keeps 100
// channels (Supabase Realtime's max_channels_per_client), every join past them gets Realtime's
// refusal, the socket stays usable and hears its accepted channels, and another member of the
// group still hears the message at once. On PostgreSQL 15 in `npm test`.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import {
  REALTIME_MAX_BINDINGS_PER_CHANNEL,
  REALTIME_MAX_CHANNELS_PER_CLIENT,
  TOO_MANY_CHANNELS_REASON,
} from '#localbase';
import { signedUpClient } from '#localbase/test/clients.ts';
import { listenForInserts } from '#localbase/test/realtime-listener.ts';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const JOINS = 10_000;
/** "Not delayed by seconds": the old cost of 10,000 subscriptions was several seconds per change. */
const DELIVERY_DEADLINE_MS = 1_000;

type Student = Awaited<ReturnType<typeof signedUpClient>>;

const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;
let gatewayUrl: string;
let owner: Student;
let victim: SupabaseClient;
let attacker: Student;
let attackerToken: string;
let groupId: string;

interface Seen {
  topic: string;
  event: string;
  ref: string | null;
  payload: { status?: string; response?: unknown; ids?: number[]; data?: { record?: Record<string, unknown> } };
}

/** A raw socket through the gateway speaking serializer 1.0.0, as a hand-written client would. */
async function rawSocket() {
  const socket = new WebSocket(
    `${gatewayUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?apikey=${localbase.anonKey}&vsn=1.0.0`,
  );
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const frames: Seen[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Seen));
  const send = (topic: string, event: string, payload: unknown, ref: string) =>
    socket.send(JSON.stringify({ topic, event, payload, ref, join_ref: ref }));
  const waitFor = async (done: () => boolean, what: string, timeoutMs = 60_000) => {
    for (let waited = 0; !done(); waited += 20) {
      if (waited > timeoutMs) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const replyTo = async (ref: string) => {
    await waitFor(
      () => frames.some((frame) => frame.ref === ref && frame.event === 'phx_reply'),
      `reply to ${ref}`,
      5_000,
    );
    return frames.find((frame) => frame.ref === ref && frame.event === 'phx_reply') as Seen;
  };
  return { socket, frames, send, waitFor, replyTo };
}

const everything = { config: { postgres_changes: [{ event: '*', schema: '*' }] } };

beforeAll(async () => {
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    ...RELAXED_DEADLINES,
  });
  gatewayUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  [owner, attacker] = await Promise.all([
    signedUpClient(localbase, 'fanout-owner'),
    signedUpClient(localbase, 'fanout-attacker'),
  ]);
  const member = await signedUpClient(localbase, 'fanout-member');
  const created = await owner.client
    .from('groups')
    .insert({ name: 'Fan-out Physiology', visibility: 'private', join_policy: 'invite', created_by: owner.id })
    .select('id')
    .single();
  if (created.error) throw new Error(`group creation failed: ${created.error.message}`);
  groupId = (created.data as { id: string }).id;
  for (const joiner of [member, attacker]) {
    const invite = await owner.client.rpc('community_create_invite', { p_type: 'group', p_target_id: groupId });
    if (invite.error) throw new Error(`invite failed: ${invite.error.message}`);
    const redeemed = await joiner.client.rpc('community_redeem_invite', { p_token: invite.data });
    if (redeemed.error) throw new Error(`redeem failed: ${redeemed.error.message}`);
  }
  attackerToken = (await attacker.client.auth.getSession()).data.session?.access_token as string;
  // The victim listens the way the app does: supabase-js through the gateway's /__backend.
  victim = createClient(`${gatewayUrl}/__backend`, localbase.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
  const signedIn = await victim.auth.signInWithPassword({ email: member.email, password: member.password });
  if (signedIn.error) throw new Error(`sign-in failed: ${signedIn.error.message}`);
}, 180_000);

afterAll(async () => {
  await victim?.removeAllChannels();
  await gateway?.close();
});

describe('attack: one socket joins 10,000 realtime channels', () => {
  it('keeps 100 of them, refuses the rest as Realtime does, and nobody waits seconds for a chat message', async () => {
    const victimHears = await listenForInserts(victim, 'group_chat_messages', `group_id=eq.${groupId}`);
    const { socket, frames, send, waitFor, replyTo } = await rawSocket();
    try {
      const withToken = { ...everything, access_token: attackerToken };
      for (let index = 0; index < JOINS; index += 1) send(`realtime:x${index}`, 'phx_join', withToken, String(index));
      const replies = () => frames.filter((frame) => frame.event === 'phx_reply');
      await waitFor(() => replies().length >= JOINS, `${JOINS} join replies`);

      const accepted = replies().filter((frame) => frame.payload.status === 'ok');
      const refused = replies().filter((frame) => frame.payload.status === 'error');
      expect(accepted).toHaveLength(REALTIME_MAX_CHANNELS_PER_CLIENT);
      expect(accepted.map((frame) => frame.topic).sort()).toEqual(
        Array.from({ length: 100 }, (_, index) => `realtime:x${index}`).sort(),
      );
      expect(refused).toHaveLength(JOINS - REALTIME_MAX_CHANNELS_PER_CLIENT);
      for (const frame of refused)
        expect(frame.payload).toEqual({ status: 'error', response: { reason: TOO_MANY_CHANNELS_REASON } });

      // A member's chat message reaches the other member at once, through the same gateway.
      const arrival = victimHears.next(10_000);
      const sentAt = performance.now();
      const sent = await owner.client.rpc('community_send_group_message', {
        p_group_id: groupId,
        p_content: 'shared notes are up',
      });
      expect(sent.error).toBeNull();
      const heard = await arrival;
      const delayMs = performance.now() - sentAt;
      expect(heard?.new).toMatchObject({ content: 'shared notes are up' });
      expect(delayMs).toBeLessThan(DELIVERY_DEADLINE_MS);

      // The flooding socket still hears the message, once on each accepted channel and nowhere else.
      const events = () =>
        frames.filter(
          (frame) =>
            frame.event === 'postgres_changes' && frame.payload.data?.record?.content === 'shared notes are up',
        );
      await waitFor(
        () => events().length >= REALTIME_MAX_CHANNELS_PER_CLIENT,
        'events on the accepted channels',
        10_000,
      );
      // Time for events on the refused channels, were there any: nothing arriving has no event to wait on.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(
        events()
          .map((frame) => frame.topic)
          .sort(),
      ).toEqual(accepted.map((frame) => frame.topic).sort());

      // And stays usable: heartbeats are answered.
      send('phoenix', 'heartbeat', {}, 'beat');
      expect((await replyTo('beat')).payload).toEqual({ status: 'ok', response: {} });
    } finally {
      socket.close();
    }
  });

  it('counts a rejoin of a joined channel once, and frees a place when a channel is left', async () => {
    const { socket, send, waitFor, frames, replyTo } = await rawSocket();
    try {
      for (let index = 0; index < REALTIME_MAX_CHANNELS_PER_CLIENT; index += 1)
        send(`realtime:r${index}`, 'phx_join', everything, `j${index}`);
      await waitFor(
        () => frames.filter((frame) => frame.payload.status === 'ok').length >= REALTIME_MAX_CHANNELS_PER_CLIENT,
        'the first 100 joins',
      );

      send('realtime:r0', 'phx_join', everything, 'again');
      expect((await replyTo('again')).payload.status).toBe('ok');
      send('realtime:one-more', 'phx_join', everything, 'full');
      expect((await replyTo('full')).payload).toEqual({
        status: 'error',
        response: { reason: TOO_MANY_CHANNELS_REASON },
      });

      send('realtime:r1', 'phx_leave', {}, 'leave');
      expect((await replyTo('leave')).payload.status).toBe('ok');
      send('realtime:one-more', 'phx_join', everything, 'freed');
      expect((await replyTo('freed')).payload.status).toBe('ok');
      send('realtime:two-more', 'phx_join', everything, 'full-again');
      expect((await replyTo('full-again')).payload.response).toEqual({ reason: TOO_MANY_CHANNELS_REASON });
    } finally {
      socket.close();
    }
  });

  it(`refuses a join asking for more than ${REALTIME_MAX_BINDINGS_PER_CHANNEL} postgres_changes bindings, and takes one at the bound`, async () => {
    const { socket, send, replyTo } = await rawSocket();
    try {
      const bindings = (count: number) => ({
        config: { postgres_changes: Array.from({ length: count }, () => ({ event: 'INSERT', schema: 'public' })) },
      });
      send('realtime:many', 'phx_join', bindings(REALTIME_MAX_BINDINGS_PER_CHANNEL + 1), 'over');
      const over = await replyTo('over');
      expect(over.payload.status).toBe('error');
      expect(over.payload.response).toEqual({
        reason: `Too many postgres_changes: at most ${REALTIME_MAX_BINDINGS_PER_CHANNEL} per channel`,
      });
      send('realtime:many', 'phx_join', bindings(REALTIME_MAX_BINDINGS_PER_CHANNEL), 'at');
      const at = await replyTo('at');
      expect(at.payload.status).toBe('ok');
      expect((at.payload.response as { postgres_changes: unknown[] }).postgres_changes).toHaveLength(
        REALTIME_MAX_BINDINGS_PER_CHANNEL,
      );
    } finally {
      socket.close();
    }
  });
});

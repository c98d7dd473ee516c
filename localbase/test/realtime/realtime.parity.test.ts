// Realtime postgres_changes through supabase-js: a subscriber gets an INSERT only when a binding
// matches and its own SELECT of the row (under its role and claims) finds it, so RLS decides.
// The rooms here are created through the management API, as a migration would create chat tables:
// realtime works for any table in publication supabase_realtime, not just one known name.
// Every client flavour runs the same tests: the pinned supabase-js on serializer 2.0.0 and 1.0.0,
// and supabase-js 2.79.0 (1.0.0 only); raw frames are checked for both serializers.
import type { SupabaseClient } from '@supabase/supabase-js';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { managementRows, REALTIME_CLIENTS, signedUpClient, type ClientFlavour } from '../clients.ts';
import {
  caughtUpWithQueue,
  listenForInserts,
  removeAllChannelsAndSettle,
  type Listener,
} from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const ROOMS_SQL = `
create table public.lb_rooms (id uuid primary key default gen_random_uuid(), name text not null);
create table public.lb_room_members (room_id uuid references public.lb_rooms (id), user_id uuid, primary key (room_id, user_id));
create table public.lb_room_messages (
  id uuid primary key default gen_random_uuid(),
  room_id uuid not null references public.lb_rooms (id),
  sender_id uuid not null default auth.uid(),
  content text not null,
  created_at timestamptz not null default now());
alter table public.lb_rooms enable row level security;
alter table public.lb_room_members enable row level security;
alter table public.lb_room_messages enable row level security;
create function public.lb_is_member(p_room uuid) returns boolean language sql stable security definer set search_path = ''
  as $$ select exists (select 1 from public.lb_room_members m where m.room_id = p_room and m.user_id = (select auth.uid())) $$;
create policy "members read messages" on public.lb_room_messages for select to authenticated using (public.lb_is_member(room_id));
create policy "members post messages" on public.lb_room_messages for insert to authenticated
  with check (public.lb_is_member(room_id) and sender_id = (select auth.uid()));
alter publication supabase_realtime add table public.lb_room_messages;`;

const localbase = fileFixture(startLocalbaseStack);

const sql = <T = unknown>(query: string): Promise<T[]> => managementRows<T>(localbase, query);

beforeAll(async () => {
  await sql(ROOMS_SQL);
});

/** Subscribes to inserts of one room and resolves once the server confirmed the join. */
function listen(client: SupabaseClient, room: string): Promise<Listener> {
  return listenForInserts(client, 'lb_room_messages', `room_id=eq.${room}`);
}

describe.each(REALTIME_CLIENTS.map((flavour) => [flavour.name, flavour] as const))(
  'with %s',
  (_name, flavour: ClientFlavour) => {
    let alice: Awaited<ReturnType<typeof signedUpClient>>;
    let bob: Awaited<ReturnType<typeof signedUpClient>>;
    let carol: Awaited<ReturnType<typeof signedUpClient>>;
    let roomId: string;
    let otherRoomId: string;

    beforeAll(async () => {
      [alice, bob, carol] = await Promise.all([
        signedUpClient(localbase, 'alice', flavour),
        signedUpClient(localbase, 'bob', flavour),
        signedUpClient(localbase, 'carol', flavour),
      ]);
      const rooms = (await sql("insert into public.lb_rooms (name) values ('biology'), ('history') returning id")) as {
        id: string;
      }[];
      roomId = rooms[0]?.id as string;
      otherRoomId = rooms[1]?.id as string;
      await sql(`insert into public.lb_room_members (room_id, user_id) values
      ('${roomId}', '${alice.id}'), ('${roomId}', '${bob.id}'), ('${otherRoomId}', '${bob.id}')`);
    });

    afterAll(async () => {
      for (const person of [alice, bob, carol]) await person?.client.removeAllChannels();
    });

    describe('realtime postgres_changes', () => {
      // Latency is a benchmark's business (tools/bench/); the deadline only keeps a lost event from hanging the test.
      it("delivers a member's message to another member live, and nothing to a non-member on the same filter", async () => {
        const aliceListens = await listen(alice.client, roomId);
        const carolListens = await listen(carol.client, roomId);
        const arrival = aliceListens.next(5000);
        const sent = await bob.client
          .from('lb_room_messages')
          .insert({ room_id: roomId, content: 'meet at 5?' })
          .select('id')
          .single();
        expect(sent.error).toBeNull();
        const payload = await arrival;
        expect(payload?.eventType).toBe('INSERT');
        expect(payload?.new).toMatchObject({
          id: sent.data?.id,
          room_id: roomId,
          sender_id: bob.id,
          content: 'meet at 5?',
        });
        // Carol's copy, had RLS let one through, would have been written before the marker.
        await caughtUpWithQueue(localbase, carol.client);
        expect(carolListens.received).toEqual([]);
      });

      it('a non-member cannot post into the room, so nothing is delivered', async () => {
        const aliceListens = await listen(alice.client, roomId);
        const refused = await carol.client.from('lb_room_messages').insert({ room_id: roomId, content: 'let me in' });
        expect(refused.status).toBe(403);
        // A row the refused insert had queued anyway would reach alice before the marker.
        await caughtUpWithQueue(localbase, alice.client);
        expect(aliceListens.received).toEqual([]);
      });

      it("does not deliver another room's messages to a subscriber filtered on this room", async () => {
        const aliceListens = await listen(alice.client, roomId);
        const elsewhere = await bob.client
          .from('lb_room_messages')
          .insert({ room_id: otherRoomId, content: 'history homework' });
        expect(elsewhere.error).toBeNull();
        await caughtUpWithQueue(localbase, alice.client);
        expect(aliceListens.received).toEqual([]);
      });

      it('delivers rows written outside the API too (here by the database owner)', async () => {
        const aliceListens = await listen(alice.client, roomId);
        const arrival = aliceListens.next(5000);
        await sql(
          `insert into public.lb_room_messages (room_id, sender_id, content) values ('${roomId}', '${bob.id}', 'from the console')`,
        );
        expect((await arrival)?.new).toMatchObject({ content: 'from the console' });
      });
    });

    describe('a late subscriber', () => {
      it('does not receive rows written before it joined, even if the queue still held them', async () => {
        for (const person of [alice, bob, carol]) await removeAllChannelsAndSettle(person.client);
        // Nobody listens now, so this row waits in the queue for the idle drain.
        const early = await bob.client
          .from('lb_room_messages')
          .insert({ room_id: roomId, content: 'before anyone listened' });
        expect(early.error).toBeNull();
        const aliceListens = await listen(alice.client, roomId);
        const arrival = aliceListens.next(5000);
        await bob.client.from('lb_room_messages').insert({ room_id: roomId, content: 'after' });
        // The hub delivers the queue in order: the early row, had it reached alice, came first.
        expect((await arrival)?.new).toMatchObject({ content: 'after' });
        expect(aliceListens.received.map((payload) => payload.new.content)).toEqual(['after']);
      });
    });
  },
);

describe('the Phoenix frames of both serializers', () => {
  let roomId: string;

  beforeAll(async () => {
    const rooms = (await sql("insert into public.lb_rooms (name) values ('raw frames') returning id")) as {
      id: string;
    }[];
    roomId = rooms[0]?.id as string;
  });

  /** A frame as the test reads it, whatever the wire form. */
  interface Seen {
    joinRef: string | null | undefined;
    ref: string | null;
    topic: string;
    event: string;
    payload: Record<string, unknown>;
    raw: unknown;
  }

  /**
   * A raw socket speaking serializer 2.0.0 (`[join_ref, ref, topic, event, payload]`) or 1.0.0
   * (`{topic, event, payload, ref, join_ref}`; `vsn` may also be left out of the URL for 1.0.0).
   */
  async function rawSocket(vsn: '1.0.0' | '2.0.0' | 'none') {
    const query = vsn === 'none' ? '' : `&vsn=${vsn}`;
    const socket = new WebSocket(
      `${localbase.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${localbase.anonKey}${query}`,
    );
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const frames: Seen[] = [];
    socket.on('message', (data) => {
      const raw = JSON.parse(String(data)) as unknown;
      if (Array.isArray(raw)) {
        const [joinRef, ref, topic, event, payload] = raw as [
          string | null,
          string | null,
          string,
          string,
          Record<string, unknown>,
        ];
        frames.push({ joinRef, ref, topic, event, payload, raw });
      } else {
        const frame = raw as {
          topic: string;
          event: string;
          payload: Record<string, unknown>;
          ref: string | null;
          join_ref?: string;
        };
        frames.push({
          joinRef: frame.join_ref,
          ref: frame.ref,
          topic: frame.topic,
          event: frame.event,
          payload: frame.payload,
          raw,
        });
      }
    });
    const waitFor = async (matches: (frame: Seen) => boolean, what: string) => {
      for (let waited = 0; waited < 3000; waited += 20) {
        const found = frames.find(matches);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no ${what}`);
    };
    const reply = (ref: string) =>
      waitFor((frame) => frame.ref === ref && frame.event === 'phx_reply', `reply to ref ${ref}`);
    /** Sends one message in this socket's serializer; 1.0.0 clients may or may not send join_ref. */
    const send = (
      joinRef: string | null,
      ref: string | null,
      topic: string,
      event: string,
      payload: unknown,
      withJoinRef = true,
    ) =>
      socket.send(
        JSON.stringify(
          vsn === '2.0.0'
            ? [joinRef, ref, topic, event, payload]
            : { topic, event, payload, ref, ...(withJoinRef ? { join_ref: joinRef } : {}) },
        ),
      );
    return { socket, frames, reply, waitFor, send };
  }

  describe.each(['2.0.0', '1.0.0', 'none'] as const)('serializer %s', (vsn) => {
    const v1 = vsn !== '2.0.0';

    it('answers heartbeats in its own frame shape (1.0.0 answers carry no join_ref)', async () => {
      const { socket, reply, send } = await rawSocket(vsn);
      send(null, '1', 'phoenix', 'heartbeat', {});
      const answer = await reply('1');
      expect(answer.raw).toEqual(
        v1
          ? { topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} }, ref: '1' }
          : [null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }],
      );
      socket.close();
    });

    it('echoes bindings with server ids on join, delivers postgres_changes, refuses an unknown event and acknowledges leave', async () => {
      const { socket, reply, send, waitFor } = await rawSocket(vsn);
      const binding = { event: 'INSERT', schema: 'public', table: 'lb_room_messages', filter: `room_id=eq.${roomId}` };
      send('2', '2', 'realtime:raw', 'phx_join', {
        config: { postgres_changes: [binding] },
        access_token: localbase.serviceRoleKey,
      });
      const joined = await reply('2');
      expect(joined.payload).toEqual({
        status: 'ok',
        response: { postgres_changes: [{ ...binding, id: expect.any(Number) }] },
      });
      expect(joined.joinRef).toBe(v1 ? undefined : '2');
      const bindingId = (joined.payload.response as { postgres_changes: { id: number }[] }).postgres_changes[0]?.id;
      await waitFor((frame) => frame.event === 'system', 'system message');

      await sql(
        `insert into public.lb_room_messages (room_id, sender_id, content) values ('${roomId}', gen_random_uuid(), 'raw ${vsn}')`,
      );
      const change = await waitFor((frame) => frame.event === 'postgres_changes', 'postgres_changes event');
      expect(change.topic).toBe('realtime:raw');
      expect(change.ref).toBeNull();
      expect(change.joinRef).toBe(v1 ? undefined : '2');
      expect(change.payload).toMatchObject({
        ids: [bindingId],
        data: { type: 'INSERT', schema: 'public', table: 'lb_room_messages', record: { content: `raw ${vsn}` } },
      });

      send('2', '3', 'realtime:raw', 'no_such_event', { type: 'no_such_event' });
      expect((await reply('3')).payload.status).toBe('error');
      send('2', '4', 'realtime:raw', 'phx_leave', {});
      expect((await reply('4')).payload.status).toBe('ok');
      socket.close();
    });

    it('refuses a join with a filter realtime does not understand, and an invalid token', async () => {
      const { socket, reply, send } = await rawSocket(vsn);
      send('1', '1', 'realtime:bad', 'phx_join', {
        config: { postgres_changes: [{ event: 'INSERT', schema: 'public', filter: 'room_id=like.x' }] },
      });
      expect((await reply('1')).payload.status).toBe('error');
      send('5', '5', 'realtime:forged', 'phx_join', { config: { postgres_changes: [] }, access_token: 'not-a-jwt' });
      expect((await reply('5')).payload.status).toBe('error');
      socket.close();
    });

    it('closes a channel whose refreshed token no longer verifies, naming its join', async () => {
      const { socket, reply, send, waitFor } = await rawSocket(vsn);
      // A 1.0.0 client that does not send join_ref: its join's ref names the channel.
      send('7', '7', 'realtime:closing', 'phx_join', { config: { postgres_changes: [] } }, false);
      expect((await reply('7')).payload.status).toBe('ok');
      send('7', '8', 'realtime:closing', 'access_token', { access_token: 'expired.or.forged' }, false);
      const closed = await waitFor((frame) => frame.event === 'phx_close', 'phx_close');
      expect(closed.raw).toEqual(
        v1
          ? { topic: 'realtime:closing', event: 'phx_close', payload: {}, ref: '7' }
          : ['7', null, 'realtime:closing', 'phx_close', {}],
      );
      socket.close();
    });
  });

  it('refuses an unknown serializer version before the upgrade (403), as Phoenix does', async () => {
    const socket = new WebSocket(
      `${localbase.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${localbase.anonKey}&vsn=3.0.0`,
    );
    const status = await new Promise<number>((resolve) =>
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)),
    );
    expect(status).toBe(403);
  });

  it('refuses the upgrade of a socket opened without a valid apikey (401, as the API gateway does)', async () => {
    for (const [query, message] of [
      ['apikey=forged&vsn=2.0.0', 'Invalid API key'],
      ['vsn=2.0.0', 'No API key found in request'],
    ] as const) {
      const socket = new WebSocket(`${localbase.url.replace('http', 'ws')}/realtime/v1/websocket?${query}`);
      const refusal = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        socket.once('open', () => reject(new Error('the socket opened')));
        socket.once('error', () => {});
        socket.once('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
      });
      expect(refusal.status).toBe(401);
      expect(JSON.parse(refusal.body)).toMatchObject({ message });
    }
  });
});

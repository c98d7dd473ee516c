// Realtime postgres_changes through supabase-js: a subscriber gets an INSERT only when a binding
// matches and its own SELECT of the row (under its role and claims) finds it, so RLS decides.
// The rooms here are created through the management API, as a migration would create chat tables:
// realtime works for any table in publication supabase_realtime, not just one known name.
import type { SupabaseClient } from '@supabase/supabase-js';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import type { Localbase } from '../server.ts';
import { managementQuery, signedUpClient } from './clients.ts';
import { listenForInserts, type Listener } from './realtime-listener.ts';

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

let localbase: Localbase;
let alice: Awaited<ReturnType<typeof signedUpClient>>;
let bob: Awaited<ReturnType<typeof signedUpClient>>;
let carol: Awaited<ReturnType<typeof signedUpClient>>;
let roomId: string;
let otherRoomId: string;

async function sql(query: string): Promise<unknown[]> {
  const response = await managementQuery(localbase, query);
  if (response.status !== 201) throw new Error(`management query failed: ${await response.text()}`);
  return (await response.json()) as unknown[];
}

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  [alice, bob, carol] = await Promise.all([
    signedUpClient(localbase, 'alice'),
    signedUpClient(localbase, 'bob'),
    signedUpClient(localbase, 'carol'),
  ]);
  await sql(ROOMS_SQL);
  const rooms = (await sql("insert into public.lb_rooms (name) values ('biology'), ('history') returning id")) as { id: string }[];
  roomId = rooms[0]?.id as string;
  otherRoomId = rooms[1]?.id as string;
  await sql(`insert into public.lb_room_members (room_id, user_id) values
    ('${roomId}', '${alice.id}'), ('${roomId}', '${bob.id}'), ('${otherRoomId}', '${bob.id}')`);
});

afterAll(async () => {
  for (const person of [alice, bob, carol]) await person?.client.removeAllChannels();
  await localbase?.close();
});

/** Subscribes to inserts of one room and resolves once the server confirmed the join. */
function listen(client: SupabaseClient, room: string): Promise<Listener> {
  return listenForInserts(client, 'lb_room_messages', `room_id=eq.${room}`);
}

describe('realtime postgres_changes', () => {
  it("delivers a member's message to another member within 1 s, and nothing to a non-member on the same filter", async () => {
    const aliceListens = await listen(alice.client, roomId);
    const carolListens = await listen(carol.client, roomId);
    const arrival = aliceListens.next(1000);
    const sentAt = Date.now();
    const sent = await bob.client.from('lb_room_messages').insert({ room_id: roomId, content: 'meet at 5?' }).select('id').single();
    expect(sent.error).toBeNull();
    const payload = await arrival;
    expect(Date.now() - sentAt).toBeLessThan(1000);
    expect(payload?.eventType).toBe('INSERT');
    expect(payload?.new).toMatchObject({ id: sent.data?.id, room_id: roomId, sender_id: bob.id, content: 'meet at 5?' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(carolListens.received).toEqual([]);
  });

  it('a non-member cannot post into the room, so nothing is delivered', async () => {
    const aliceListens = await listen(alice.client, roomId);
    const refused = await carol.client.from('lb_room_messages').insert({ room_id: roomId, content: 'let me in' });
    expect(refused.status).toBe(403);
    expect(await aliceListens.next(600)).toBeUndefined();
  });

  it("does not deliver another room's messages to a subscriber filtered on this room", async () => {
    const aliceListens = await listen(alice.client, roomId);
    const elsewhere = await bob.client.from('lb_room_messages').insert({ room_id: otherRoomId, content: 'history homework' });
    expect(elsewhere.error).toBeNull();
    expect(await aliceListens.next(600)).toBeUndefined();
  });

  it('delivers rows written outside the API too (here by the database owner)', async () => {
    const aliceListens = await listen(alice.client, roomId);
    const arrival = aliceListens.next(1000);
    await sql(`insert into public.lb_room_messages (room_id, sender_id, content) values ('${roomId}', '${bob.id}', 'from the console')`);
    expect((await arrival)?.new).toMatchObject({ content: 'from the console' });
  });
});

describe('a late subscriber', () => {
  it('does not receive rows written before it joined, even if the queue still held them', async () => {
    for (const person of [alice, bob, carol]) await person.client.removeAllChannels();
    // Nobody listens now, so this row waits in the queue for the idle drain.
    const early = await bob.client.from('lb_room_messages').insert({ room_id: roomId, content: 'before anyone listened' });
    expect(early.error).toBeNull();
    const aliceListens = await listen(alice.client, roomId);
    expect(await aliceListens.next(700)).toBeUndefined();
    const arrival = aliceListens.next(1000);
    await bob.client.from('lb_room_messages').insert({ room_id: roomId, content: 'after' });
    expect((await arrival)?.new).toMatchObject({ content: 'after' });
  });
});

describe('the Phoenix frames realtime-js relies on', () => {
  /** A raw socket speaking serializer 2.0.0: [join_ref, ref, topic, event, payload]. */
  async function rawSocket() {
    const socket = new WebSocket(`${localbase.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${localbase.anonKey}&vsn=2.0.0`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const frames: unknown[][] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data)) as unknown[]));
    const reply = async (ref: string) => {
      for (let waited = 0; waited < 2000; waited += 20) {
        const found = frames.find((frame) => frame[1] === ref && frame[3] === 'phx_reply');
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no reply to ref ${ref}`);
    };
    return { socket, reply, send: (frame: unknown[]) => socket.send(JSON.stringify(frame)) };
  }

  it('answers heartbeats, echoes bindings with server ids on join, acknowledges leave and refuses broadcast', async () => {
    const { socket, reply, send } = await rawSocket();
    send([null, '1', 'phoenix', 'heartbeat', {}]);
    expect(await reply('1')).toEqual([null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
    const binding = { event: 'INSERT', schema: 'public', table: 'lb_room_messages', filter: `room_id=eq.${roomId}` };
    send(['2', '2', 'realtime:raw', 'phx_join', { config: { postgres_changes: [binding] }, access_token: localbase.anonKey }]);
    const joined = (await reply('2'))[4] as { status: string; response: { postgres_changes: { id: number }[] } };
    expect(joined.status).toBe('ok');
    expect(joined.response.postgres_changes).toEqual([{ ...binding, id: expect.any(Number) }]);
    send(['2', '3', 'realtime:raw', 'broadcast', { type: 'broadcast', event: 'x', payload: {} }]);
    expect(((await reply('3'))[4] as { status: string }).status).toBe('error');
    send(['2', '4', 'realtime:raw', 'phx_leave', {}]);
    expect(((await reply('4'))[4] as { status: string }).status).toBe('ok');
    socket.close();
  });

  it('refuses a join with a filter realtime does not understand', async () => {
    const { socket, reply, send } = await rawSocket();
    send(['1', '1', 'realtime:bad', 'phx_join', { config: { postgres_changes: [{ event: 'INSERT', schema: 'public', filter: 'room_id=like.x' }] } }]);
    expect(((await reply('1'))[4] as { status: string }).status).toBe('error');
    socket.close();
  });

  it('refuses the upgrade of a socket opened without a valid apikey (401, as the API gateway does)', async () => {
    for (const [query, message] of [['apikey=forged&vsn=2.0.0', 'Invalid API key'], ['vsn=2.0.0', 'No API key found in request']] as const) {
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

// Private channels through supabase-js, authorized as Supabase's Realtime Authorization authorizes
// them: by RLS policies on realtime.messages naming realtime.topic(). Ada and Bo are members of a
// room who may write, Cy a member who may only read, Dee no member. Joining, broadcasting,
// presence, broadcasts from the database (realtime.send, realtime.broadcast_changes) and over HTTP
// all answer to the policies, and a private topic never meets the public topic of the same name.
// On PostgreSQL 15 in `npm test`.
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor, managementQuery, signedUpClient } from '../clients.ts';
import { caughtUpWithQueue, caughtUpWithSocket, subscribed } from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let ada: SupabaseClient;
let bo: SupabaseClient;
let cy: SupabaseClient;
let dee: SupabaseClient;
let adaToken: string;
let cyToken: string;

const ROOM = 'room:physics';

const POLICIES = `
create table public.room_members (room text not null, user_id uuid not null, can_write boolean not null,
  primary key (room, user_id));
grant select on public.room_members to authenticated;
create policy "members hear their rooms" on realtime.messages for select to authenticated
  using (exists (select 1 from public.room_members m where m.room = realtime.topic() and m.user_id = (select auth.uid())));
create policy "writers speak in their rooms" on realtime.messages for insert to authenticated
  with check (exists (select 1 from public.room_members m
    where m.room = realtime.topic() and m.user_id = (select auth.uid()) and m.can_write));
create table public.lab_notes (id bigint primary key, body text not null);
create function public.lab_notes_broadcast() returns trigger language plpgsql security definer set search_path = '' as $$
begin
  perform realtime.broadcast_changes('${ROOM}', tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
  return null;
end
$$;
create trigger lab_notes_broadcast after insert or update or delete on public.lab_notes
  for each row execute function public.lab_notes_broadcast();`;

async function sql(query: string): Promise<void> {
  const response = await managementQuery(localbase, query);
  expect(response.status, await response.clone().text()).toBe(201);
}

beforeAll(async () => {
  await sql(POLICIES);
  const [a, b, c, d] = await Promise.all(['ada', 'bo', 'cy', 'dee'].map((name) => signedUpClient(localbase, name)));
  ({ client: ada } = a!);
  ({ client: bo } = b!);
  ({ client: cy } = c!);
  ({ client: dee } = d!);
  adaToken = (await ada.auth.getSession()).data.session!.access_token;
  cyToken = (await cy.auth.getSession()).data.session!.access_token;
  await sql(`insert into public.room_members values
    ('${ROOM}', '${a!.id}', true), ('${ROOM}', '${b!.id}', true), ('${ROOM}', '${c!.id}', false)`);
});

afterAll(async () => {
  for (const client of [ada, bo, cy, dee]) await client?.removeAllChannels();
});

interface Joined {
  channel: RealtimeChannel;
  heard: { event: string; payload: unknown }[];
  until(count: number): Promise<{ event: string; payload: unknown }[]>;
}

async function join(
  client: SupabaseClient,
  topic: string,
  options: { private?: boolean; presence?: boolean; ack?: boolean } = {},
): Promise<Joined> {
  const channel = client.channel(topic, {
    config: { private: options.private ?? true, broadcast: { self: false, ack: options.ack ?? true } },
  });
  const heard: Joined['heard'] = [];
  channel.on('broadcast', { event: '*' }, ({ event, payload }) => heard.push({ event, payload }));
  if (options.presence) channel.on('presence', { event: 'sync' }, () => {});
  await subscribed(channel);
  return {
    channel,
    heard,
    until: async (count) => {
      for (let waited = 0; heard.length < count && waited < 3000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return heard;
    },
  };
}

/** A private message to ROOM over HTTP, as `token` sends it; answered 202 whether relayed or dropped. */
function postToRoom(token: string, event: string): Promise<Response> {
  return fetch(`${localbase.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ topic: ROOM, event, payload: {}, private: true }] }),
  });
}

/**
 * A marker to ROOM's members, sent by the service role. Deliveries to a private topic wait for
 * their receivers' check and go out in the order they were made (topics.ts), and the HTTP
 * endpoint makes its deliveries before it answers: a member that has the marker has everything
 * delivered to the room before it was posted.
 */
async function markRoom(): Promise<void> {
  expect((await postToRoom(localbase.serviceRoleKey, 'marker')).status).toBe(202);
}

const MARKER = { event: 'marker', payload: {} };

describe('joining a private channel', () => {
  it('lets members in and keeps everyone else out with Realtime\'s "Unauthorized" reply', async () => {
    const joined = await join(ada, ROOM);
    expect(joined.channel.state).toBe('joined');
    await expect(join(dee, ROOM)).rejects.toThrow(
      `Unauthorized: You do not have permissions to read from this Channel topic: ${ROOM}`,
    );
    await expect(join(ada, 'room:chemistry')).rejects.toThrow('Unauthorized');
    // The anon key is no member of anything.
    await expect(join(clientFor(localbase), ROOM)).rejects.toThrow('Unauthorized');
    await ada.removeAllChannels();
  });
});

describe('broadcast on a private channel', () => {
  it("relays a writer's message to the room's members, and a reader's to nobody", async () => {
    const adaJoined = await join(ada, ROOM);
    const boJoined = await join(bo, ROOM);
    // Without ack: hosted Realtime drops a message the policies refuse without any answer, so an
    // ack would only time out.
    const cyJoined = await join(cy, ROOM, { ack: false });
    try {
      expect(await adaJoined.channel.send({ type: 'broadcast', event: 'question', payload: { n: 1 } })).toBe('ok');
      expect(await boJoined.until(1)).toEqual([{ event: 'question', payload: { n: 1 } }]);
      expect(await cyJoined.until(1)).toEqual([{ event: 'question', payload: { n: 1 } }]);
      await cyJoined.channel.send({ type: 'broadcast', event: 'reply', payload: { n: 2 } });
      // A real clock: the server answers nothing to a message the policies refuse, and it refuses it
      // only after a policy query of its own, which nothing the test can see is ordered after (not
      // cy's next message, not a marker to the room). Had it been relayed, it would be here by now.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(adaJoined.heard).toEqual([]);
      expect(boJoined.heard).toEqual([{ event: 'question', payload: { n: 1 } }]);
    } finally {
      for (const client of [ada, bo, cy]) await client.removeAllChannels();
    }
  });

  it('keeps the private topic and the public topic of the same name apart, both ways', async () => {
    // Public channels of the same name, on clients of their own (a client holds one channel per topic).
    const [publicSender, publicListener] = [clientFor(localbase), clientFor(localbase)];
    const privateBo = await join(bo, ROOM);
    const privateAda = await join(ada, ROOM);
    const publicHeard = await join(publicListener, ROOM, { private: false });
    const publicSent = await join(publicSender, ROOM, { private: false });
    try {
      expect(await publicSent.channel.send({ type: 'broadcast', event: 'public', payload: {} })).toBe('ok');
      expect(await publicHeard.until(1)).toEqual([{ event: 'public', payload: {} }]);
      expect(await privateAda.channel.send({ type: 'broadcast', event: 'private', payload: {} })).toBe('ok');
      expect(await privateBo.until(1)).toEqual([{ event: 'private', payload: {} }]);
      // Each message goes to its receivers in one synchronous loop: a copy for the public channel, or
      // a second one for bo, was written before bo had his and is ahead of the echoes.
      await Promise.all([caughtUpWithSocket(publicListener), caughtUpWithSocket(bo)]);
      expect(privateBo.heard).toEqual([{ event: 'private', payload: {} }]);
      expect(publicHeard.heard).toEqual([{ event: 'public', payload: {} }]);
    } finally {
      for (const client of [ada, bo, publicSender, publicListener]) await client.removeAllChannels();
    }
  });
});

describe('presence on a private channel', () => {
  it("shows a writer's presence to the members, and refuses a reader's track", async () => {
    const adaJoined = await join(ada, ROOM, { presence: true });
    const cyJoined = await join(cy, ROOM, { presence: true });
    try {
      expect(await adaJoined.channel.track({ studying: 'optics' })).toBe('ok');
      for (let waited = 0; Object.keys(cyJoined.channel.presenceState()).length === 0 && waited < 3000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const seen = Object.values(cyJoined.channel.presenceState()).flat();
      expect(seen).toMatchObject([{ studying: 'optics' }]);
      expect(await cyJoined.channel.track({ studying: 'waves' })).toBe('error');
      // A diff of cy's track would have been queued for the room's check before the answer, so
      // ahead of the marker.
      await markRoom();
      expect(await adaJoined.until(1)).toEqual([MARKER]);
      expect(Object.values(adaJoined.channel.presenceState()).flat()).toMatchObject([{ studying: 'optics' }]);
    } finally {
      for (const client of [ada, cy]) await client.removeAllChannels();
    }
  });
});

describe('broadcast from the database and over HTTP', () => {
  it('sends realtime.send and realtime.broadcast_changes to the private channels only', async () => {
    const privateBo = await join(bo, ROOM);
    const publicListener = clientFor(localbase);
    const publicDee = await join(publicListener, ROOM, { private: false });
    try {
      await sql(`select realtime.send('{"n": 7}', 'announce', '${ROOM}')`);
      await sql(`insert into public.lab_notes values (1, 'prism')`);
      await sql(`update public.lab_notes set body = 'lens' where id = 1`);
      expect(await privateBo.until(3)).toEqual([
        { event: 'announce', payload: { n: 7 } },
        {
          event: 'INSERT',
          payload: {
            operation: 'INSERT',
            schema: 'public',
            table: 'lab_notes',
            record: { id: 1, body: 'prism' },
            old_record: null,
          },
        },
        {
          event: 'UPDATE',
          payload: {
            operation: 'UPDATE',
            schema: 'public',
            table: 'lab_notes',
            record: { id: 1, body: 'lens' },
            old_record: { id: 1, body: 'prism' },
          },
        },
      ]);
      await caughtUpWithQueue(localbase, publicListener);
      expect(publicDee.heard).toEqual([]);
    } finally {
      for (const client of [bo, publicListener]) await client.removeAllChannels();
    }
  });

  it("relays a private HTTP message from a writer or the service role, and drops a reader's (202 both)", async () => {
    const privateBo = await join(bo, ROOM);
    try {
      expect((await postToRoom(cyToken, 'from-cy')).status).toBe(202);
      expect((await postToRoom(adaToken, 'from-ada')).status).toBe(202);
      expect((await postToRoom(localbase.serviceRoleKey, 'from-service')).status).toBe(202);
      expect(await privateBo.until(2)).toEqual([
        { event: 'from-ada', payload: {} },
        { event: 'from-service', payload: {} },
      ]);
      // A late or second copy of any of the three would reach bo ahead of the marker.
      await markRoom();
      expect((await privateBo.until(3)).map((each) => each.event)).toEqual(['from-ada', 'from-service', 'marker']);
    } finally {
      await bo.removeAllChannels();
    }
  });
});

describe('a changed token', () => {
  it('ends the channel of a member removed from the room when her token is refreshed', async () => {
    const cyJoined = await join(cy, ROOM);
    const boJoined = await join(bo, ROOM);
    await sql(
      `delete from public.room_members where room = '${ROOM}' and user_id = (select id from auth.users where email like 'cy-%')`,
    );
    const { data } = await cy.auth.refreshSession();
    expect(data.session).not.toBeNull();
    for (let waited = 0; cyJoined.channel.state !== 'closed' && waited < 3000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cyJoined.channel.state).toBe('closed');
    // Bo's token did not change: his channel stays.
    expect(boJoined.channel.state).toBe('joined');
    for (const client of [bo, cy]) await client.removeAllChannels();
  });
});

describe('a session that ends while its channels stay open', () => {
  it("closes a member's private channel at the next broadcast once she signed out everywhere, with Realtime's system error", async () => {
    const eve = await signedUpClient(localbase, 'eve');
    await sql(`insert into public.room_members values ('${ROOM}', '${eve.id}', false)`);
    const eveToken = (await eve.client.auth.getSession()).data.session!.access_token;
    const eveJoined = await join(eve.client, ROOM);
    const boJoined = await join(bo, ROOM);
    const adaJoined = await join(ada, ROOM);
    const system: { status?: string; message?: string }[] = [];
    eveJoined.channel.on('system', {}, (payload: { status?: string; message?: string }) => system.push(payload));
    try {
      // Straight to the API, as another device of hers would: her client keeps its token and channel.
      const signedOut = await fetch(`${localbase.url}/auth/v1/logout?scope=global`, {
        method: 'POST',
        headers: { apikey: localbase.anonKey, authorization: `Bearer ${eveToken}` },
      });
      expect(signedOut.status).toBe(204);
      expect(await adaJoined.channel.send({ type: 'broadcast', event: 'after', payload: { n: 1 } })).toBe('ok');
      expect(await boJoined.until(1)).toEqual([{ event: 'after', payload: { n: 1 } }]);
      for (let waited = 0; eveJoined.channel.state !== 'closed' && waited < 3000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(eveJoined.channel.state).toBe('closed');
      expect(system).toContainEqual(
        expect.objectContaining({ status: 'error', message: 'The session of this token has ended' }),
      );
      // No wait: every frame written to her before phx_close came before it, and realtime-js
      // dispatches nothing to a channel once it is closed.
      expect(eveJoined.heard).toEqual([]);
    } finally {
      for (const client of [ada, bo, eve.client]) await client.removeAllChannels();
    }
  });
});

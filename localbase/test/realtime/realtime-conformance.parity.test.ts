// Realtime conformance through three realtime-js versions side by side: 2.10.9 on its own (the
// oldest 2.x localbase supports), supabase-js 2.79's and the pinned supabase-js's. Each feature
// group runs through each version: postgres_changes UPDATE and DELETE with the old record as the
// replica identity keeps it, broadcast between two clients and from the database (realtime.send),
// and presence sync, join and leave. Where a version cannot do something, the test asserts what it
// does instead. On PostgreSQL 15 in `npm test`.
import type { RealtimeChannel } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import {
  managementRows,
  REALTIME_VERSIONS,
  signedUpClient,
  type RealtimeConnection,
  type RealtimeUser,
  type RealtimeVersion,
} from '../clients.ts';
import { caughtUpWithQueue, caughtUpWithSocket, subscribed } from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

// cf_default: RLS by team, default replica identity. cf_full: the same with REPLICA IDENTITY FULL.
// cf_open: no RLS, REPLICA IDENTITY FULL.
const TABLES_SQL = `
create table public.cf_members (team text not null, user_id uuid not null, primary key (team, user_id));
create function public.cf_is_member(p_team text) returns boolean language sql stable security definer set search_path = ''
  as $$ select exists (select 1 from public.cf_members m where m.team = p_team and m.user_id = (select auth.uid())) $$;
create table public.cf_default (id bigint primary key, team text not null, title text not null, secret text);
create table public.cf_full (id bigint primary key, team text not null, title text not null, secret text);
alter table public.cf_full replica identity full;
create table public.cf_open (id bigint primary key, title text not null);
alter table public.cf_open replica identity full;
alter table public.cf_default enable row level security;
alter table public.cf_full enable row level security;
create policy "members read" on public.cf_default for select to authenticated using (public.cf_is_member(team));
create policy "members read" on public.cf_full for select to authenticated using (public.cf_is_member(team));
grant select on public.cf_default, public.cf_full, public.cf_open to authenticated;
alter publication supabase_realtime add table public.cf_default, public.cf_full, public.cf_open;`;

const localbase = fileFixture(startLocalbaseStack);
/** alice is a member of every test's team, carol of none. */
let alice: RealtimeUser & { id: string };
let carol: RealtimeUser & { id: string };

const sql = <T = unknown>(query: string): Promise<T[]> => managementRows<T>(localbase, query);

async function user(name: string): Promise<RealtimeUser & { id: string }> {
  const { client, id } = await signedUpClient(localbase, name);
  const { data } = await client.auth.getSession();
  if (!data.session) throw new Error(`${name} has no session`);
  return { id, accessToken: data.session.access_token };
}

beforeAll(async () => {
  await sql(TABLES_SQL);
  [alice, carol] = await Promise.all([user('alice'), user('carol')]);
});

/**
 * Resolves once everything written to the database so far (changes, realtime.send) has reached the
 * given connections, if it was to reach them: what has not arrived by then is withheld
 * (caughtUpWithQueue).
 */
const caughtUp = (...connections: RealtimeConnection[]) => caughtUpWithQueue(localbase, ...connections);

/** What a channel heard, with a wait for the first `count` of it. */
class Heard<Item> {
  readonly items: Item[] = [];

  readonly push = (item: Item): void => {
    this.items.push(item);
  };

  async until(count: number, timeoutMs = 5000): Promise<Item[]> {
    for (let waited = 0; this.items.length < count && waited < timeoutMs; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return this.items;
  }
}

interface Change {
  eventType: string;
  table: string;
  new: Record<string, unknown>;
  old: Record<string, unknown>;
}

async function listenForChanges(connection: RealtimeConnection, table: string): Promise<Heard<Change>> {
  const heard = new Heard<Change>();
  const channel = connection.channel(`changes-${table}-${Math.random()}`);
  channel.on('postgres_changes', { event: '*', schema: 'public', table }, (payload: Change) => heard.push(payload));
  await subscribed(channel);
  return heard;
}

interface Message {
  event: string;
  payload: unknown;
}

async function listenForBroadcasts(
  connection: RealtimeConnection,
  topic: string,
  broadcast: { self?: boolean; ack?: boolean } = {},
): Promise<{ channel: RealtimeChannel; heard: Heard<Message> }> {
  const heard = new Heard<Message>();
  const channel = connection.channel(topic, { config: { broadcast } });
  channel.on('broadcast', { event: '*' }, (message: Message) =>
    heard.push({ event: message.event, payload: message.payload }),
  );
  return { channel: await subscribed(channel), heard };
}

let counter = 0;
const fresh = (prefix: string) => `${prefix}-${process.pid}-${(counter += 1)}`;

/** A row of cf_default inserted, updated and deleted, as statements (`<team>` stands for the team). */
const WRITES = (id: number) =>
  `insert into public.cf_default (id, team, title, secret) values (${id}, '<team>', 'first', 'kept');` +
  ` update public.cf_default set title = 'second' where id = ${id};` +
  ` delete from public.cf_default where id = ${id};`;

describe.each(REALTIME_VERSIONS.map((version) => [version.name, version] as const))(
  'with %s',
  (_name, version: RealtimeVersion) => {
    const connections: RealtimeConnection[] = [];
    const connect = async (as?: RealtimeUser) => {
      const connection = await version.connect(localbase, as);
      connections.push(connection);
      return connection;
    };
    let team: string;

    beforeAll(async () => {
      team = fresh('team');
      await sql(`insert into public.cf_members (team, user_id) values ('${team}', '${alice.id}')`);
    });

    afterAll(async () => {
      for (const connection of connections) await connection.removeAllChannels();
    });

    let nextId = 0;
    async function seed(table: 'cf_default' | 'cf_full' | 'cf_open'): Promise<number> {
      // Ids apart per version: the tables are shared by the describes.
      nextId += 1;
      const id = REALTIME_VERSIONS.indexOf(version) * 1000 + nextId;
      await sql(
        table === 'cf_open'
          ? `insert into public.cf_open (id, title) values (${id}, 'open ${id}')`
          : `insert into public.${table} (id, team, title, secret) values (${id}, '${team}', 'doc ${id}', 'secret ${id}')`,
      );
      return id;
    }

    describe('postgres_changes UPDATE and DELETE', () => {
      it('carries the old row as its primary key under the default replica identity, to members only', async () => {
        const id = await seed('cf_default');
        const member = await listenForChanges(await connect(alice), 'cf_default');
        const outsiderConnection = await connect(carol);
        const outsider = await listenForChanges(outsiderConnection, 'cf_default');
        await sql(`update public.cf_default set title = 'renamed' where id = ${id}`);
        await sql(`delete from public.cf_default where id = ${id}`);
        const [updated, deleted] = await member.until(2);
        expect(updated).toMatchObject({ eventType: 'UPDATE', table: 'cf_default' });
        expect(updated?.new).toEqual({ id, team, title: 'renamed', secret: `secret ${id}` });
        expect(updated?.old).toEqual({ id });
        expect(deleted).toMatchObject({ eventType: 'DELETE', table: 'cf_default', new: {} });
        expect(deleted?.old).toEqual({ id });
        await caughtUp(outsiderConnection);
        // A DELETE cannot be checked against a row that is gone: it reaches every reader of the
        // table, with nothing but the key. The UPDATE's new row is carol's to read only if RLS says so.
        expect(outsider.items.map((change) => change.eventType)).toEqual(['DELETE']);
        expect(outsider.items[0]?.old).toEqual({ id });
      });

      // All three writes are committed before the queue is drained, so every captured change is
      // checked after its row is gone: in one transaction, and in three (on PGlite one query holds
      // the engine's one session, so no drain can run between them).
      it.each([
        ['in one transaction', (id: number) => `begin; ${WRITES(id)} commit;`],
        ['in three transactions back to back', (id: number) => WRITES(id).replace(/([^;]+;)/g, 'begin;$1 commit;')],
      ])(
        'delivers an INSERT, an UPDATE and a DELETE of one row made %s, in order, each with the row as written',
        async (_how, writes) => {
          nextId += 1;
          const id = REALTIME_VERSIONS.indexOf(version) * 1000 + 500 + nextId;
          const memberConnection = await connect(alice);
          const outsiderConnection = await connect(carol);
          const member = await listenForChanges(memberConnection, 'cf_default');
          const outsider = await listenForChanges(outsiderConnection, 'cf_default');
          await sql(writes(id).replaceAll('<team>', team));
          await member.until(3);
          await caughtUp(memberConnection, outsiderConnection);
          expect(member.items.map((change) => [change.eventType, change.new, change.old])).toEqual([
            ['INSERT', { id, team, title: 'first', secret: 'kept' }, {}],
            ['UPDATE', { id, team, title: 'second', secret: 'kept' }, { id }],
            ['DELETE', {}, { id }],
          ]);
          // The captured rows are checked against the outsider's policies too: only the DELETE,
          // which is not checked, reaches her.
          expect(outsider.items.map((change) => change.eventType)).toEqual(['DELETE']);
        },
      );

      it('checks a captured row as it was written: a row moved out of the team reaches the member as it was before', async () => {
        nextId += 1;
        const id = REALTIME_VERSIONS.indexOf(version) * 1000 + 500 + nextId;
        const memberConnection = await connect(alice);
        const member = await listenForChanges(memberConnection, 'cf_default');
        await sql(
          `begin;
           insert into public.cf_default (id, team, title) values (${id}, '${team}', 'in the team');
           update public.cf_default set team = 'nobody', title = 'moved out' where id = ${id};
           commit;`,
        );
        await member.until(1);
        // The UPDATE comes after the INSERT in the queue, maybe in a later drain: the marker after both.
        await caughtUp(memberConnection);
        // The INSERT's row was the team's; the UPDATE's row is no longer hers to read.
        expect(member.items.map((change) => [change.eventType, change.new.title])).toEqual([['INSERT', 'in the team']]);
      });

      it('carries the whole old row of an UPDATE under REPLICA IDENTITY FULL, still only to readers RLS lets see the new row', async () => {
        const id = await seed('cf_full');
        const member = await listenForChanges(await connect(alice), 'cf_full');
        const outsiderConnection = await connect(carol);
        const outsider = await listenForChanges(outsiderConnection, 'cf_full');
        await sql(`update public.cf_full set title = 'renamed', secret = 'new secret' where id = ${id}`);
        const [updated] = await member.until(1);
        expect(updated).toMatchObject({ eventType: 'UPDATE', table: 'cf_full' });
        expect(updated?.new).toEqual({ id, team, title: 'renamed', secret: 'new secret' });
        expect(updated?.old).toEqual({ id, team, title: `doc ${id}`, secret: `secret ${id}` });
        await caughtUp(outsiderConnection);
        expect(outsider.items).toEqual([]);
      });

      it('carries only the key of a DELETE from an RLS table even under REPLICA IDENTITY FULL, and the whole row without RLS', async () => {
        const guarded = await seed('cf_full');
        const open = await seed('cf_open');
        const full = await listenForChanges(await connect(carol), 'cf_full');
        const openListener = await listenForChanges(await connect(carol), 'cf_open');
        await sql(`delete from public.cf_full where id = ${guarded}; delete from public.cf_open where id = ${open}`);
        const [deletedGuarded] = await full.until(1);
        const [deletedOpen] = await openListener.until(1);
        // As Supabase Realtime: a deleted row cannot be checked against the reader's policies.
        expect(deletedGuarded).toMatchObject({ eventType: 'DELETE', old: { id: guarded } });
        expect(Object.keys(deletedGuarded?.old ?? {})).toEqual(['id']);
        expect(deletedOpen).toMatchObject({ eventType: 'DELETE', old: { id: open, title: `open ${open}` } });
      });
    });

    describe('broadcast', () => {
      it("relays one client's broadcast to another's channel of the topic, not back to the sender, nor elsewhere", async () => {
        const topic = fresh('room');
        const annConnection = await connect();
        const ann = await listenForBroadcasts(annConnection, topic);
        const ben = await listenForBroadcasts(await connect(), topic);
        const elsewhereConnection = await connect();
        const elsewhere = await listenForBroadcasts(elsewhereConnection, fresh('room'));
        expect(await ann.channel.send({ type: 'broadcast', event: 'cursor', payload: { x: 3 } })).toBe('ok');
        expect(await ben.heard.until(1)).toEqual([{ event: 'cursor', payload: { x: 3 } }]);
        // The relay writes to every receiver at once: ann's and the other topic's copies, had there
        // been any, were written before ben's and are on their sockets ahead of the echoes.
        await Promise.all([caughtUpWithSocket(annConnection), caughtUpWithSocket(elsewhereConnection)]);
        expect(ann.heard.items).toEqual([]);
        expect(elsewhere.heard.items).toEqual([]);
      });

      it(
        version.binaryBroadcast
          ? 'sends raw bytes as a binary frame, which localbase refuses with an error reply'
          : 'has no binary broadcast: raw bytes go as JSON text, an empty object, and are relayed as such',
        async () => {
          const topic = fresh('room');
          const ann = await listenForBroadcasts(await connect(), topic, { ack: true });
          const benConnection = await connect();
          const ben = await listenForBroadcasts(benConnection, topic);
          const bytes = new Uint8Array([1, 2, 3]).buffer;
          const sent = await ann.channel.send({ type: 'broadcast', event: 'bytes', payload: bytes });
          if (version.binaryBroadcast) {
            expect(sent).toBe('error');
            // The server relays a broadcast before it answers the sender: a copy would be ahead of the echo.
            await caughtUpWithSocket(benConnection);
            expect(ben.heard.items).toEqual([]);
          } else {
            expect(sent).toBe('ok');
            expect(await ben.heard.until(1)).toEqual([{ event: 'bytes', payload: {} }]);
          }
        },
      );

      it('relays realtime.send from the database to public channels after commit, not a private or rolled-back one', async () => {
        const topic = fresh('feed');
        const listenerConnection = await connect(alice);
        const listener = await listenForBroadcasts(listenerConnection, topic);
        await sql(`begin; select realtime.send('{"n": 0}', 'undone', '${topic}', false); rollback;`);
        await sql(`select realtime.send('{"n": 1}', 'private', '${topic}')`);
        await sql(`select realtime.send('{"n": 2}', 'announce', '${topic}', false)`);
        await sql(`select realtime.send('{"n": 3}', 'elsewhere', '${topic}-other', false)`);
        expect(await listener.heard.until(1)).toEqual([{ event: 'announce', payload: { n: 2 } }]);
        // The other topic's message was written after the public one: the marker comes after it.
        await caughtUp(listenerConnection);
        expect(listener.heard.items).toHaveLength(1);
      });
    });

    describe('presence', () => {
      it('syncs the state to a joiner, and tells the others of its join and its leave', async () => {
        const topic = fresh('lobby');
        type PresenceEvent = { event: string; key: string };
        const join = async (key: string, heard: Heard<PresenceEvent>) => {
          const connection = await connect();
          const channel = connection.channel(topic, { config: { presence: { key } } });
          channel
            .on('presence', { event: 'sync' }, () => heard.push({ event: 'sync', key: '' }))
            .on('presence', { event: 'join' }, ({ key: who }: { key: string }) =>
              heard.push({ event: 'join', key: who }),
            )
            .on('presence', { event: 'leave' }, ({ key: who }: { key: string }) =>
              heard.push({ event: 'leave', key: who }),
            );
          await subscribed(channel);
          return { connection, channel };
        };
        const annHeard = new Heard<PresenceEvent>();
        const ann = await join('ann', annHeard);
        expect(await ann.channel.track({ status: 'reading' })).toBe('ok');
        await annHeard.until(2);

        const benHeard = new Heard<PresenceEvent>();
        const ben = await join('ben', benHeard);
        // The joiner is synced with who is there: ann's entry, with what she tracked.
        await benHeard.until(2);
        expect(benHeard.items).toContainEqual({ event: 'join', key: 'ann' });
        expect(Object.keys(ben.channel.presenceState())).toEqual(['ann']);
        expect(ben.channel.presenceState().ann?.[0]).toMatchObject({ status: 'reading' });

        expect(await ben.channel.track({ status: 'writing' })).toBe('ok');
        await annHeard.until(4);
        expect(annHeard.items).toContainEqual({ event: 'join', key: 'ben' });
        expect(Object.keys(ann.channel.presenceState()).sort()).toEqual(['ann', 'ben']);

        await ben.connection.removeAllChannels();
        for (let waited = 0; !annHeard.items.some((item) => item.event === 'leave') && waited < 5000; waited += 20)
          await new Promise((resolve) => setTimeout(resolve, 20));
        expect(annHeard.items).toContainEqual({ event: 'leave', key: 'ben' });
        expect(Object.keys(ann.channel.presenceState())).toEqual(['ann']);
      });
    });
  },
);

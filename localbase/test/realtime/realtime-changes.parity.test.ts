// Realtime postgres_changes UPDATE and DELETE through supabase-js, as Supabase Realtime sends them:
// an UPDATE carries the new row and what the replica identity keeps of the old one, and reaches
// only subscribers whose own SELECT finds the new row (RLS decides, as for an INSERT); a DELETE
// cannot be checked against a row that is gone, so it reaches every subscriber whose role may read
// the table, with only the primary key of the old row when the table has RLS enabled.
// On PostgreSQL 15 in `npm test`.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { managementRows, PINNED_CLIENT, REALTIME_CLIENTS, signedUpClient } from '../clients.ts';
import { caughtUpWithQueue, listenForChanges, type ChangePayload, type Listener } from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

// ev_docs: RLS by team membership, default replica identity. ev_full: the same, REPLICA IDENTITY
// FULL. ev_open: no RLS, REPLICA IDENTITY FULL.
const TABLES_SQL = `
create table public.ev_members (team text not null, user_id uuid not null, primary key (team, user_id));
create function public.ev_is_member(p_team text) returns boolean language sql stable security definer set search_path = ''
  as $$ select exists (select 1 from public.ev_members m where m.team = p_team and m.user_id = (select auth.uid())) $$;
create table public.ev_docs (id bigint primary key, team text not null, title text not null, secret text);
create table public.ev_full (id bigint primary key, team text not null, title text not null, secret text);
alter table public.ev_full replica identity full;
create table public.ev_open (id bigint primary key, title text not null);
alter table public.ev_open replica identity full;
alter table public.ev_docs enable row level security;
alter table public.ev_full enable row level security;
create policy "members read" on public.ev_docs for select to authenticated using (public.ev_is_member(team));
create policy "members update" on public.ev_docs for update to authenticated using (public.ev_is_member(team)) with check (public.ev_is_member(team));
create policy "members delete" on public.ev_docs for delete to authenticated using (public.ev_is_member(team));
create policy "members read" on public.ev_full for select to authenticated using (public.ev_is_member(team));
create policy "members update" on public.ev_full for update to authenticated using (public.ev_is_member(team)) with check (public.ev_is_member(team));
create policy "members delete" on public.ev_full for delete to authenticated using (public.ev_is_member(team));
alter publication supabase_realtime add table public.ev_docs, public.ev_full, public.ev_open;`;

const localbase = fileFixture(startLocalbaseStack);

const sql = <T = unknown>(query: string): Promise<T[]> => managementRows<T>(localbase, query);

beforeAll(async () => {
  await sql(TABLES_SQL);
});

/**
 * Resolves once every change written so far has reached the given clients, if it was to reach
 * them: what has not arrived by then is withheld (caughtUpWithQueue).
 */
const caughtUp = (...clients: SupabaseClient[]) => caughtUpWithQueue(localbase, ...clients);

let nextId = 1;

/** A fresh row of `table` for `team`, written by the owner (so no subscriber's rights are involved). */
async function seed(table: string, team: string): Promise<number> {
  nextId += 1;
  await sql(
    table === 'ev_open'
      ? `insert into public.ev_open (id, title) values (${nextId}, 'open ${nextId}')`
      : `insert into public.${table} (id, team, title, secret) values (${nextId}, '${team}', 'doc ${nextId}', 'secret ${nextId}')`,
  );
  return nextId;
}

describe.each(REALTIME_CLIENTS.map((flavour) => [flavour.name, flavour] as const))('with %s', (_name, flavour) => {
  let alice: Awaited<ReturnType<typeof signedUpClient>>;
  let bob: Awaited<ReturnType<typeof signedUpClient>>;
  let carol: Awaited<ReturnType<typeof signedUpClient>>;
  const team = `team-${flavour.name.length}-${Math.random().toString(36).slice(2, 8)}`;
  const otherTeam = `${team}-other`;

  beforeAll(async () => {
    [alice, bob, carol] = await Promise.all([
      signedUpClient(localbase, 'alice', flavour),
      signedUpClient(localbase, 'bob', flavour),
      signedUpClient(localbase, 'carol', flavour),
    ]);
    // alice and bob are in the team, carol is not; bob is also in the other team.
    await sql(`insert into public.ev_members (team, user_id) values
      ('${team}', '${alice.id}'), ('${team}', '${bob.id}'), ('${otherTeam}', '${bob.id}')`);
  });

  afterAll(async () => {
    for (const person of [alice, bob, carol]) await person?.client.removeAllChannels();
  });

  const listen = (
    client: SupabaseClient,
    table: string,
    event: 'UPDATE' | 'DELETE' | '*',
    filter = '',
  ): Promise<Listener<ChangePayload>> => listenForChanges(client, table, filter, event);

  it("delivers a member's UPDATE to another member with the new row and the old key, and nothing to a non-member", async () => {
    const id = await seed('ev_docs', team);
    const aliceListens = await listen(alice.client, 'ev_docs', 'UPDATE');
    const carolListens = await listen(carol.client, 'ev_docs', 'UPDATE');
    const arrival = aliceListens.next(5000);
    const updated = await bob.client.from('ev_docs').update({ title: 'renamed' }).eq('id', id).select('id');
    expect(updated.error).toBeNull();
    expect(updated.data).toHaveLength(1);
    const payload = await arrival;
    expect(payload).toMatchObject({ eventType: 'UPDATE', schema: 'public', table: 'ev_docs', errors: null });
    expect(payload?.new).toEqual({ id, team, title: 'renamed', secret: `secret ${id}` });
    // Default replica identity: the old row is only its primary key.
    expect(payload?.old).toEqual({ id });
    expect(Number.isNaN(Date.parse(payload?.commit_timestamp ?? ''))).toBe(false);
    await caughtUp(carol.client, alice.client);
    expect(carolListens.received).toEqual([]);
    expect(aliceListens.received).toHaveLength(1);
  });

  it('withholds an UPDATE that moves a row out of what the subscriber may read (checked on the new row)', async () => {
    const id = await seed('ev_docs', team);
    const aliceListens = await listen(alice.client, 'ev_docs', 'UPDATE');
    const bobListens = await listen(bob.client, 'ev_docs', 'UPDATE');
    const arrival = bobListens.next(5000);
    const moved = await bob.client.from('ev_docs').update({ team: otherTeam }).eq('id', id).select('id');
    expect(moved.data).toHaveLength(1);
    // bob may read the row in its new team, alice may not.
    expect((await arrival)?.new).toMatchObject({ id, team: otherTeam });
    await caughtUp(alice.client);
    expect(aliceListens.received).toEqual([]);
  });

  it('sends the whole old row of an UPDATE under REPLICA IDENTITY FULL', async () => {
    const id = await seed('ev_full', team);
    const aliceListens = await listen(alice.client, 'ev_full', 'UPDATE');
    const carolListens = await listen(carol.client, 'ev_full', 'UPDATE');
    const arrival = aliceListens.next(5000);
    await bob.client.from('ev_full').update({ title: 'renamed' }).eq('id', id);
    const payload = await arrival;
    expect(payload?.old).toEqual({ id, team, title: `doc ${id}`, secret: `secret ${id}` });
    expect(payload?.new).toEqual({ id, team, title: 'renamed', secret: `secret ${id}` });
    await caughtUp(carol.client);
    expect(carolListens.received).toEqual([]);
  });

  it('sends a DELETE of an RLS table to every subscriber of the table, with only the primary key, even to a non-member', async () => {
    for (const table of ['ev_docs', 'ev_full']) {
      const id = await seed(table, team);
      const aliceListens = await listen(alice.client, table, 'DELETE');
      const carolListens = await listen(carol.client, table, 'DELETE');
      const arrivals = [aliceListens.next(5000), carolListens.next(5000)];
      const deleted = await bob.client.from(table).delete().eq('id', id).select('id');
      expect(deleted.data).toHaveLength(1);
      for (const payload of await Promise.all(arrivals)) {
        expect(payload).toMatchObject({ eventType: 'DELETE', table, new: {} });
        // Under REPLICA IDENTITY FULL too: RLS is on, so nothing but the key may leave.
        expect(payload?.old).toEqual({ id });
      }
    }
  });

  it('sends the whole old row of a DELETE from a table without RLS under REPLICA IDENTITY FULL', async () => {
    const id = await seed('ev_open', team);
    const carolListens = await listen(carol.client, 'ev_open', 'DELETE');
    const arrival = carolListens.next(5000);
    await sql(`delete from public.ev_open where id = ${id}`);
    expect((await arrival)?.old).toEqual({ id, title: `open ${id}` });
  });

  it('does not send a DELETE to a subscriber whose role may not read the table', async () => {
    await sql(`revoke select on public.ev_open from anon`);
    try {
      const id = await seed('ev_open', team);
      const anonymous = flavour.create(localbase.url, localbase.anonKey);
      const anonListens = await listen(anonymous, 'ev_open', 'DELETE');
      const carolListens = await listen(carol.client, 'ev_open', 'DELETE');
      const arrival = carolListens.next(5000);
      await sql(`delete from public.ev_open where id = ${id}`);
      expect((await arrival)?.old).toMatchObject({ id });
      await caughtUp(anonymous);
      expect(anonListens.received).toEqual([]);
      await anonymous.removeAllChannels();
    } finally {
      await sql(`grant select on public.ev_open to anon`);
    }
  });

  it('applies a row filter to an UPDATE (on the new row) and to a DELETE (on the old record, when it holds the column)', async () => {
    const inTeam = await seed('ev_docs', team);
    const bobsOther = await seed('ev_docs', otherTeam);
    const byTeam = await listen(bob.client, 'ev_docs', '*', `team=eq.${team}`);
    const byId = await listen(bob.client, 'ev_docs', 'DELETE', `id=eq.${inTeam}`);
    const updateArrives = byTeam.next(5000);
    await bob.client.from('ev_docs').update({ title: 'other team' }).eq('id', bobsOther);
    await bob.client.from('ev_docs').update({ title: 'this team' }).eq('id', inTeam);
    expect(await updateArrives).toMatchObject({ eventType: 'UPDATE', new: { id: inTeam, title: 'this team' } });
    const deleteArrives = byId.next(5000);
    await bob.client.from('ev_docs').delete().in('id', [bobsOther, inTeam]);
    expect(await deleteArrives).toMatchObject({ eventType: 'DELETE', old: { id: inTeam } });
    // The other row's DELETE may come after this one in the queue: the marker comes after both.
    await caughtUp(bob.client);
    // The team filter names a column a default-identity DELETE does not carry: it matches nothing.
    expect(byTeam.received.map((payload) => payload.eventType)).toEqual(['UPDATE']);
    expect(byId.received).toHaveLength(1);
  });
});

it('delivers INSERT, UPDATE and DELETE of one row to a "*" binding, in order', async () => {
  const alice = await signedUpClient(localbase, 'alice', PINNED_CLIENT);
  await sql(`insert into public.ev_members (team, user_id) values ('star', '${alice.id}')`);
  const listens = await listen(alice.client);
  const receivedCount = async (count: number) => {
    for (let waited = 0; listens.received.length < count && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
  };
  // Each change is checked on the row it captured, so the writes need not wait for each other's
  // events: the UPDATE is shown even when the queue is drained after the row's DELETE.
  await sql(`insert into public.ev_docs (id, team, title) values (9001, 'star', 'first')`);
  await sql(`update public.ev_docs set title = 'second' where id = 9001`);
  await sql(`delete from public.ev_docs where id = 9001`);
  await receivedCount(3);
  expect(listens.received.map((payload) => [payload.eventType, payload.new, payload.old])).toEqual([
    ['INSERT', { id: 9001, team: 'star', title: 'first', secret: null }, {}],
    ['UPDATE', { id: 9001, team: 'star', title: 'second', secret: null }, { id: 9001 }],
    ['DELETE', {}, { id: 9001 }],
  ]);
  await alice.client.removeAllChannels();

  function listen(client: SupabaseClient): Promise<Listener<ChangePayload>> {
    return listenForChanges(client, 'ev_docs', 'id=eq.9001', '*');
  }
});

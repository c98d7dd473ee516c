// One change, many subscribers: the hub decides who may see the row in one database round trip,
// however many subscribers there are, and RLS still decides for each of them as a SELECT under its
// own role and claims would. Counted on the pool the hub is given: every query on the pool is a
// round trip, and so is every checked-out connection, whose statements must then go out together
// (pipelined): one sent only after another was answered is counted as a round trip of its own.
// On PGlite in `npm test`, on PostgreSQL 15 in `test:pg`.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import type { VerifiedToken } from '../src/jwt.ts';
import { installCapture, syncCaptureTriggers } from '../src/realtime/capture.ts';
import type { Frame } from '../src/realtime/frames.ts';
import { RealtimeHub } from '../src/realtime/hub.ts';
import { installVisibility } from '../src/realtime/visibility.ts';
import { installSessionGuard } from '../src/session-guard.ts';

const NOTES_SQL = `
create table public.rt_notes (id bigint primary key, owner uuid not null, body text not null);
alter table public.rt_notes enable row level security;
grant select on public.rt_notes to authenticated, service_role;
create policy "owners read their notes" on public.rt_notes for select to authenticated using (owner = (select auth.uid()));
create table public.rt_reads (id bigserial primary key, note bigint);
create function public.rt_count_read(p_note bigint) returns boolean language plpgsql volatile as $$
begin
  insert into public.rt_reads (note) values (p_note);
  return true;
end
$$;
create table public.rt_logged (id bigint primary key, body text not null);
alter table public.rt_logged enable row level security;
grant select on public.rt_logged to authenticated;
grant insert on public.rt_reads to authenticated;
grant usage on sequence public.rt_reads_id_seq to authenticated;
create policy "reading writes" on public.rt_logged for select to authenticated using (public.rt_count_read(id));
create table public.rt_slots (day date, starts timestamptz, tag text, seats numeric, primary key (day, starts, tag));
grant select on public.rt_slots to service_role;
alter publication supabase_realtime add table public.rt_notes, public.rt_logged;`;

let database: Database;
let owner: pg.Pool;

/** The queues' read (queue.ts) and the readers' heartbeat (readers.ts): not the check's round trips. */
function isQueueUpkeep(sql: string): boolean {
  return sql.includes('_localbase.realtime_changes') || sql.includes('pg_current_snapshot()');
}

/** The owner's pool as the hub sees it, counting round trips other than reading and tending the queues. */
function countingPool(): {
  pool: pg.Pool;
  roundTrips: () => number;
  drains: () => number;
  reset: () => void;
  asked: unknown[];
} {
  let roundTrips = 0;
  let drains = 0;
  /** Every reader the visibility statements were asked about. */
  const asked: unknown[] = [];
  const pool = new Proxy(owner, {
    get(target, property, receiver) {
      if (property === 'query') {
        return (text: string | { text: string }, ...rest: unknown[]) => {
          const sql = typeof text === 'string' ? text : text.text;
          if (isQueueUpkeep(sql)) drains += 1;
          else roundTrips += 1;
          if (sql.includes('_localbase.realtime_visibility'))
            asked.push(...(JSON.parse(String((rest[0] as unknown[])[4])) as unknown[]));
          return (target.query as (...args: unknown[]) => unknown)(text, ...rest);
        };
      }
      if (property === 'connect') {
        // Counted with its first statement: a connection that only reads the queues is no round trip here.
        return async () => countingClient(await target.connect());
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  /**
   * A checked-out connection: its first statement is a round trip, and so is one sent after all
   * earlier ones were answered; statements sent while one is waiting go out in the same write.
   * Reading or tending the queues counts as a drain.
   */
  function countingClient(client: pg.PoolClient): pg.PoolClient {
    let waiting = 0;
    return new Proxy(client, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
        return (query: string | { text: string; values?: unknown[] }, ...rest: unknown[]) => {
          const config = typeof query === 'string' ? { text: query, values: rest[0] as unknown[] | undefined } : query;
          if (isQueueUpkeep(config.text)) drains += 1;
          else if (waiting === 0) roundTrips += 1;
          if (config.text.includes('_localbase.realtime_visibility'))
            asked.push(...(JSON.parse(String(config.values?.[4])) as unknown[]));
          waiting += 1;
          const answered = (target.query as (...args: unknown[]) => Promise<unknown>)(query, ...rest);
          return answered.finally(() => (waiting -= 1));
        };
      },
    });
  }

  return {
    pool,
    asked,
    roundTrips: () => roundTrips,
    drains: () => drains,
    reset: () => {
      roundTrips = 0;
      drains = 0;
    },
  };
}

function student(id: string, sessionId?: string): VerifiedToken {
  return {
    role: 'authenticated',
    claims: { role: 'authenticated', sub: id, ...(sessionId ? { session_id: sessionId } : {}) },
  };
}

interface Subscribed {
  hub: RealtimeHub;
  received: Frame[][];
  logged: unknown[];
  /** Channels the hub closed, with the system message they got. */
  closed: [number, string][];
  counter: ReturnType<typeof countingPool>;
}

/**
 * A hub with one channel per token on `table`, reading what is written from now on; its checks of
 * one change spread over `checkConnections` connections, as on PostgreSQL (1: PGlite's way).
 */
async function subscribe(tokens: VerifiedToken[], table: string, checkConnections = 1): Promise<Subscribed> {
  const counter = countingPool();
  const logged: unknown[] = [];
  const closed: [number, string][] = [];
  const received: Frame[][] = tokens.map(() => []);
  const hub = new RealtimeHub(counter.pool, (error) => logged.push(error), { checkConnections });
  tokens.forEach((token, index) =>
    hub.add({
      topic: `realtime:${table}-${index}`,
      joinRef: String(index),
      bindings: [{ id: index + 1, event: 'INSERT', schema: 'public', table, filter: undefined }],
      token,
      joinedAt: new Date(Date.now() - 1000),
      send: (frame) => received[index]?.push(frame),
      close: (message) => closed.push([index, message]),
    }),
  );
  await hub.readFromNow();
  return { hub, received, logged, closed, counter };
}

let nextNote = 1;

/** Inserts a note as the database owner and has the hub deliver it; answers the round trips it took. */
async function deliverNote(subscribed: Subscribed, noteOwner: string): Promise<number> {
  await owner.query('insert into public.rt_notes (id, owner, body) values ($1, $2, $3)', [
    nextNote,
    noteOwner,
    `note ${nextNote}`,
  ]);
  nextNote += 1;
  subscribed.counter.reset();
  await subscribed.hub.poke();
  expect(subscribed.counter.drains()).toBeGreaterThan(0);
  return subscribed.counter.roundTrips();
}

beforeAll(async () => {
  database = await openParityDatabase();
  owner = database.pool;
  await installSessionGuard(owner);
  await installCapture(owner);
  await installVisibility(owner);
  await owner.query(NOTES_SQL);
  await syncCaptureTriggers(owner);
  // Empty the queue of anything written while setting up.
  await owner.query('delete from _localbase.realtime_changes');
});

afterAll(async () => {
  await database?.close();
});

describe('the read check of one change to many subscribers', () => {
  it.each([1, 10, 100])('takes one round trip for %i subscribers, and RLS decides for each', async (count) => {
    const students = Array.from({ length: count }, () => randomUUID());
    const subscribed = await subscribe(
      students.map((id) => student(id)),
      'rt_notes',
    );
    try {
      // The first change also reads the table's shape (cached afterwards).
      await deliverNote(subscribed, students[0] as string);
      const roundTrips = await deliverNote(subscribed, students[count - 1] as string);
      expect(roundTrips).toBe(1);
      const expected = students.map((_, index) => (index === 0 ? 1 : 0) + (index === count - 1 ? 1 : 0));
      expect(subscribed.received.map((frames) => frames.length)).toEqual(expected);
      expect(subscribed.logged).toEqual([]);
    } finally {
      subscribed.hub.stop();
    }
  });

  it('spreads 60 distinct readers over connections in slices of at least 25, one statement each, and RLS still decides for each', async () => {
    const students = Array.from({ length: 60 }, () => randomUUID());
    const subscribed = await subscribe(
      students.map((id) => student(id)),
      'rt_notes',
      4,
    );
    try {
      await deliverNote(subscribed, students[0] as string);
      // Three slices (25, 25, 10), each its own statement on its own connection, sent side by side.
      expect(await deliverNote(subscribed, students[42] as string)).toBe(3);
      expect(subscribed.counter.asked).toHaveLength(120);
      expect(subscribed.received.map((frames) => frames.length)).toEqual(
        students.map((_, index) => (index === 0 || index === 42 ? 1 : 0)),
      );
      expect(subscribed.logged).toEqual([]);
    } finally {
      await subscribed.hub.stop();
    }
  });

  it('asks once about subscribers with the same role and claims, and still delivers to each of them', async () => {
    const alice = randomUUID();
    const subscribed = await subscribe([student(alice), student(alice), student(alice)], 'rt_notes');
    try {
      await deliverNote(subscribed, alice);
      expect(subscribed.counter.asked).toHaveLength(1);
      expect(subscribed.received.map((frames) => frames.length)).toEqual([1, 1, 1]);
    } finally {
      subscribed.hub.stop();
    }
  });

  it('gives service_role every row, anon (no grant) none, and closes the channel of a student whose session ended, quietly', async () => {
    const alice = randomUUID();
    await owner.query(
      `insert into auth.users (id, aud, role, email) values ($1, 'authenticated', 'authenticated', $2)`,
      [alice, `${alice}@rt.test`],
    );
    const live = randomUUID();
    await owner.query('insert into auth.sessions (id, user_id) values ($1, $2)', [live, alice]);
    const subscribed = await subscribe(
      [
        { role: 'service_role', claims: { role: 'service_role' } },
        { role: 'anon', claims: { role: 'anon' } },
        student(alice, randomUUID()),
        student(alice, live),
      ],
      'rt_notes',
    );
    try {
      await deliverNote(subscribed, alice);
      expect(subscribed.received.map((frames) => frames.length)).toEqual([1, 0, 0, 1]);
      expect(subscribed.closed).toEqual([[2, 'The session of this token has ended']]);
      expect(subscribed.logged).toEqual([]);
    } finally {
      subscribed.hub.stop();
    }
  });

  it('runs the checks read-only: a policy that writes is refused, logged, and the row withheld', async () => {
    const alice = randomUUID();
    const subscribed = await subscribe([student(alice)], 'rt_logged');
    try {
      await owner.query(`insert into public.rt_logged (id, body) values (1, 'read me')`);
      await subscribed.hub.poke();
      expect(subscribed.received).toEqual([[]]);
      expect(subscribed.logged).toEqual([expect.objectContaining({ code: '25006' })]);
      const reads = await owner.query('select count(*)::int as n from public.rt_reads');
      expect(reads.rows[0]?.n).toBe(0);
    } finally {
      subscribed.hub.stop();
    }
  });
});

describe('the visibility function', () => {
  const call = `select reader, visible, error_code from _localbase.realtime_visibility('public', 'rt_notes', array['id'], '{"id": 1}', $1)`;

  it('switches only to the API roles, whatever a reader names', async () => {
    const { rows } = await owner.query(call, [
      JSON.stringify([
        { role: 'postgres', claims: '{}', session: null },
        { role: 'service_role', claims: '{}', session: null },
      ]),
    ]);
    expect(rows).toEqual([
      { reader: 0, visible: false, error_code: '42501' },
      { reader: 1, visible: true, error_code: null },
    ]);
    const after = await owner.query('select current_user as who');
    expect(after.rows[0]?.who).not.toMatch(/^(anon|authenticated|service_role)$/);
  });

  it('switches the role again for the reader after one whose check failed, so RLS still decides for it', async () => {
    // The first check fails under authenticated (its sub is no uuid), which rolls its role switch
    // back: the next reader must not run as the owner, who bypasses RLS.
    const alice = randomUUID();
    const readers = [
      { role: 'authenticated', claims: JSON.stringify({ role: 'authenticated', sub: 'not-a-uuid' }), session: null },
      { role: 'authenticated', claims: JSON.stringify({ role: 'authenticated', sub: randomUUID() }), session: null },
      { role: 'authenticated', claims: JSON.stringify({ role: 'authenticated', sub: alice }), session: null },
      { role: 'anon', claims: JSON.stringify({ role: 'anon' }), session: null },
    ];
    const { rows } = await owner.query(
      `select reader, visible, error_code from _localbase.realtime_visibility('public', 'rt_notes', array['id'], $2, $1) order by reader`,
      [JSON.stringify(readers), JSON.stringify({ id: 9001, owner: alice, body: 'after a failure' })],
    );
    expect(rows).toEqual([
      { reader: 0, visible: false, error_code: '22P02' },
      { reader: 1, visible: false, error_code: null },
      { reader: 2, visible: true, error_code: null },
      { reader: 3, visible: false, error_code: null },
    ]);
  });

  it('keeps the verdicts before a failed check and decides every reader after it, each as itself', async () => {
    // A check that raises in the middle must leave the verdicts before it as they were, and the
    // readers after it must still be asked as themselves, under their own sub.
    const alice = randomUUID();
    const bea = randomUUID();
    const reader = (sub: string, claimsSub: string = sub) => ({
      role: 'authenticated',
      claims: JSON.stringify({ role: 'authenticated', sub: claimsSub }),
      sub,
      claimRole: 'authenticated',
      session: null,
    });
    const readers = [reader(alice), reader(bea), reader('not-a-uuid'), reader(bea), reader(alice), reader(alice, '')];
    const { rows } = await owner.query(
      `select reader, visible, error_code from _localbase.realtime_visibility('public', 'rt_notes', array['id'], $2, $1) order by reader`,
      [JSON.stringify(readers), JSON.stringify({ id: 9002, owner: alice, body: 'in the middle' })],
    );
    expect(rows).toEqual([
      { reader: 0, visible: true, error_code: null },
      { reader: 1, visible: false, error_code: null },
      { reader: 2, visible: false, error_code: '22P02' },
      { reader: 3, visible: false, error_code: null },
      { reader: 4, visible: true, error_code: null },
      // auth.uid() reads the sub passed beside the claims first, as it reads PostgREST's per-claim
      // setting: the caller passes both from one verified token.
      { reader: 5, visible: true, error_code: null },
    ]);
  });

  it('decides on the row as the change captured it, not as the table holds it now', async () => {
    const alice = randomUUID();
    const asAlice = [
      { role: 'authenticated', claims: JSON.stringify({ role: 'authenticated', sub: alice }), session: null },
    ];
    const check = (record: object) =>
      owner
        .query(`select visible from _localbase.realtime_visibility('public', 'rt_notes', array['id'], $1, $2)`, [
          JSON.stringify(record),
          JSON.stringify(asAlice),
        ])
        .then((result) => result.rows[0]?.visible as boolean);
    // Gone from the table (deleted since), or held there by someone else (updated since): the
    // captured row decides.
    expect(await check({ id: 9003, owner: alice, body: 'deleted since' })).toBe(true);
    await owner.query(`insert into public.rt_notes (id, owner, body) values (9004, $1, 'hers now')`, [alice]);
    expect(await check({ id: 9004, owner: randomUUID(), body: 'not hers when written' })).toBe(false);
  });

  it('applies the policies as RLS combines them: permissive ones OR-ed, restrictive ones AND-ed, sub-selects on the live table', async () => {
    await owner.query(`create table public.rt_cards (id bigint primary key, deck text not null, author uuid, hidden boolean not null);
      alter table public.rt_cards enable row level security;
      grant select on public.rt_cards to authenticated, anon;
      create policy "authors read theirs" on public.rt_cards for select to authenticated using (author = (select auth.uid()));
      create table public.rt_decks (name text primary key, open boolean not null);
      grant select on public.rt_decks to authenticated, anon;
      create policy "anyone reads an open deck's cards" on public.rt_cards for select using (
        exists (select 1 from public.rt_decks d where d.name = rt_cards.deck and d.open));
      create policy "nobody reads hidden cards" on public.rt_cards as restrictive for select to authenticated using (not hidden);
      insert into public.rt_decks values ('open deck', true), ('closed deck', false)`);
    const alice = randomUUID();
    const readers = [
      { role: 'authenticated', claims: JSON.stringify({ role: 'authenticated', sub: alice }), session: null },
      { role: 'anon', claims: JSON.stringify({ role: 'anon' }), session: null },
    ];
    const check = async (record: object) =>
      (
        await owner.query(
          `select reader, visible, error_code from _localbase.realtime_visibility('public', 'rt_cards', array['id'], $1, $2) order by reader`,
          [JSON.stringify(record), JSON.stringify(readers)],
        )
      ).rows.map((row: { visible: boolean; error_code: string | null }) => [row.visible, row.error_code]);
    // Alice's card: hers to read; anon's only policy (to public) asks whether its deck is open.
    expect(await check({ id: 20, deck: 'closed deck', author: alice, hidden: false })).toEqual([
      [true, null],
      [false, null],
    ]);
    // A card of the open deck: both read it through the policy to public, whose sub-select reads a
    // live table and names the captured row by the table's name.
    expect(await check({ id: 21, deck: 'open deck', author: null, hidden: false })).toEqual([
      [true, null],
      [true, null],
    ]);
    // Hidden: the restrictive policy applies to authenticated only.
    expect(await check({ id: 22, deck: 'open deck', author: alice, hidden: true })).toEqual([
      [false, null],
      [true, null],
    ]);
  });

  it('types every column of the captured row by the table, whatever its value holds', async () => {
    await owner.query(`alter table public.rt_slots enable row level security;
      grant select on public.rt_slots to authenticated;
      create policy "the 18:00 slot of o'brien" on public.rt_slots for select to authenticated
        using (tag = 'o''brien' and starts = '2026-11-25 18:00+00' and seats = 1.5 and day = '2026-11-25')`);
    const check = (record: object) =>
      owner
        .query(
          `select visible, error_code from _localbase.realtime_visibility('public', 'rt_slots', array['day', 'starts', 'tag'], $1, $2)`,
          [
            JSON.stringify(record),
            JSON.stringify([{ role: 'authenticated', claims: '{"role":"authenticated"}', session: null }]),
          ],
        )
        .then((result) => result.rows[0] as { visible: boolean; error_code: string | null });
    // The same instant written in another zone, the same number written longer: the same values.
    expect(await check({ day: '2026-11-25', starts: '2026-11-25T19:00:00+01:00', tag: "o'brien", seats: 1.5 })).toEqual(
      {
        visible: true,
        error_code: null,
      },
    );
    expect(
      await check({
        day: '2026-11-25',
        starts: '2026-11-25T18:00:00+00:00',
        tag: "o'brien'; select 1; --",
        seats: 1.5,
      }),
    ).toEqual({ visible: false, error_code: null });
    expect(await check({ day: '2026-11-26', starts: '2026-11-25T18:00:00+00:00', tag: "o'brien", seats: 1.5 })).toEqual(
      { visible: false, error_code: null },
    );
    expect(await check({ day: '2026-11-25', starts: null, tag: "o'brien", seats: 1.5 })).toEqual({
      visible: false,
      error_code: null,
    });
  });

  it('replaces a prepared check a failed call left in the session, and leaves none behind', async () => {
    const client = await owner.connect();
    try {
      await client.query('prepare _localbase_realtime_check as select false');
      const { rows } = await client.query(call, [
        JSON.stringify([{ role: 'service_role', claims: '{}', session: null }]),
      ]);
      expect(rows).toEqual([{ reader: 0, visible: true, error_code: null }]);
      const left = await client.query(
        `select count(*)::int as n from pg_prepared_statements where name = '_localbase_realtime_check'`,
      );
      expect(left.rows[0]?.n).toBe(0);
    } finally {
      client.release();
    }
  });

  it.each(['anon', 'authenticated', 'service_role'])('may not be executed by %s', async (role) => {
    const client = await owner.connect();
    try {
      await client.query('begin');
      await client.query(`set local role ${role}`);
      const refused = await client.query(call, ['[]']).then(
        () => undefined,
        (error: { code?: string }) => error.code,
      );
      expect(refused).toBe('42501');
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});

describe('a data dir from before UPDATE and DELETE were captured', () => {
  it('gets the queue column and the trigger on all three events at the next start', async () => {
    // What the INSERT-only install left: no old_record column, a non-null record, an INSERT trigger.
    await owner.query(`
      drop trigger localbase_realtime_capture on public.rt_logged;
      create trigger localbase_realtime_capture after insert on public.rt_logged for each row execute function _localbase.capture_change();
      alter table _localbase.realtime_changes drop column old_record;
      alter table _localbase.realtime_changes alter column record set not null;
      update _localbase.installed set digest = 'an older install' where name = 'realtime-capture';`);
    await installCapture(owner);
    const { rows } = await owner.query(
      `select tgtype from pg_trigger where tgrelid = 'public.rt_logged'::regclass and tgname = 'localbase_realtime_capture'`,
    );
    expect(rows).toEqual([{ tgtype: 1 | 4 | 8 | 16 }]);
    await owner.query(`insert into public.rt_logged (id, body) values (77, 'before'); update public.rt_logged set body = 'after' where id = 77;
      delete from public.rt_logged where id = 77`);
    const queued = await owner.query(
      `select event, record, old_record from _localbase.realtime_changes
       where table_name = 'rt_logged' and coalesce(record, old_record) ->> 'id' = '77' order by id`,
    );
    await owner.query('delete from _localbase.realtime_changes');
    expect(queued.rows).toEqual([
      { event: 'INSERT', record: { id: 77, body: 'before' }, old_record: null },
      { event: 'UPDATE', record: { id: 77, body: 'after' }, old_record: { id: 77 } },
      { event: 'DELETE', record: null, old_record: { id: 77 } },
    ]);
  });

  it('answers a DELETE by the table grant and the live session, without selecting the row', async () => {
    const readers = [
      { role: 'authenticated', claims: '{}', session: null },
      { role: 'anon', claims: '{}', session: null },
      { role: 'authenticated', claims: '{}', session: randomUUID() },
    ];
    await owner.query('revoke all on public.rt_notes from anon');
    const { rows } = await owner
      .query(
        `select reader, visible, error_code from _localbase.realtime_visibility('public', 'rt_notes', array['id'], '{"id": 424242}', $1, false) order by reader`,
        [JSON.stringify(readers)],
      )
      .finally(() => owner.query('grant select on public.rt_notes to anon'));
    // The row does not exist: authenticated is told yes by its grant, anon (no grant) no, an ended session no.
    expect(rows).toEqual([
      { reader: 0, visible: true, error_code: null },
      { reader: 1, visible: false, error_code: null },
      { reader: 2, visible: false, error_code: 'LB401' },
    ]);
  });
});

// The hub's read check, without a database: the subscribers of a change are decided in one
// statement (or in slices side by side, where the database has connections to spare), subscribers
// with the same role and claims are asked about once, and a failure is handled as before: "this
// subscriber may not read the row" (no grant, an ended session) is an answer and stays quiet, any
// other failure is logged before the change is withheld, never swallowed.
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { VerifiedToken } from '../src/jwt.ts';
import type { Frame } from '../src/realtime/frames.ts';
import { RealtimeHub } from '../src/realtime/hub.ts';
import { checkSlices, MIN_READERS_PER_SLICE, READERS_PER_STATEMENT } from '../src/realtime/visibility.ts';

interface VisibilityRow {
  reader: number;
  visible: boolean;
  error_code: string | null;
  error_message: string | null;
}

interface FakeDatabase {
  pool: pg.Pool;
  /** The readers each visibility statement was asked about. */
  statements: { role: string; claims: string }[][];
  /** The most visibility statements that were running at one time. */
  mostAtOnce: number;
}

/**
 * A pool whose queue holds one change (read once by the queue's read, queue.ts) and that answers
 * the visibility statement (sent on a checked-out connection, pipelined with its transaction) with
 * `answer`.
 */
function fakeDatabase(answer: (readers: { role: string; claims: string }[]) => VisibilityRow[] | Error): FakeDatabase {
  let read = false;
  const statements: FakeDatabase['statements'] = [];
  let running = 0;
  const database = { statements, mostAtOnce: 0 } as FakeDatabase;
  /** The queue's read answers its newer snapshot with each item as {kind, item}: one change, once. */
  const readQueue = () => {
    const rows = read
      ? [{ up_to: '20:20:', kind: null, item: null }]
      : [
          {
            up_to: '20:20:',
            kind: 'change',
            item: {
              id: 1,
              schema_name: 'public',
              table_name: 'notes',
              event: 'INSERT',
              record: { id: 7 },
              committed_at: new Date(Date.now() + 60_000).toISOString(),
            },
          },
        ];
    read = true;
    return { rows };
  };
  const client = {
    query: async (query: string | { text: string; values?: unknown[] }) => {
      const { text, values = [] } = typeof query === 'string' ? { text: query } : query;
      if (!text.includes('_localbase.realtime_visibility')) return { rows: [] };
      const readers = JSON.parse(String(values[4])) as { role: string; claims: string }[];
      statements.push(readers);
      running += 1;
      database.mostAtOnce = Math.max(database.mostAtOnce, running);
      // Answered on a later turn, as a database does, so that statements sent together overlap.
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      const rows = answer(readers);
      if (rows instanceof Error) throw rows;
      return { rows };
    },
    release: () => {},
    on: () => client,
  };
  const pool = {
    query: async (text: string) => {
      if (text.includes('_localbase.realtime_visibility'))
        throw new Error('the read check runs in a transaction of its own');
      if (text.includes('from _localbase.realtime_changes c')) return readQueue();
      if (text.includes('_localbase.realtime_readers')) return { rows: [{ registered: true }] };
      return { rows: [{ name: 'id', type: 'int4', primary_key: true }] };
    },
    connect: async () => client,
  } as unknown as pg.Pool;
  database.pool = pool;
  return database;
}

function token(sub: string): VerifiedToken {
  return { role: 'authenticated', claims: { role: 'authenticated', sub } };
}

async function deliverOnce(
  database: FakeDatabase,
  tokens: VerifiedToken[],
  checkConnections = 1,
): Promise<{ logged: unknown[]; sent: Frame[][] }> {
  const logged: unknown[] = [];
  const sent: Frame[][] = tokens.map(() => []);
  const hub = new RealtimeHub(database.pool, (error) => logged.push(error), { checkConnections });
  tokens.forEach((subscriberToken, index) =>
    hub.add({
      topic: `realtime:notes-${index}`,
      joinRef: '1',
      bindings: [{ id: index + 1, event: '*', schema: 'public', table: 'notes', filter: undefined }],
      token: subscriberToken,
      joinedAt: new Date(),
      send: (frame) => sent[index]?.push(frame),
      // Recorded as a frame of its own, so a test sees where among the deliveries it came.
      close: (message) =>
        sent[index]?.push({ joinRef: '1', ref: null, topic: 'notes', event: 'closed', payload: message }),
    }),
  );
  await hub.poke();
  await hub.stop();
  return { logged, sent };
}

const seen = (reader: number, visible: boolean, errorCode: string | null = null): VisibilityRow => ({
  reader,
  visible,
  error_code: errorCode,
  error_message: errorCode ? `failed with ${errorCode}` : null,
});

describe("the realtime hub's read check", () => {
  it('asks once for all subscribers, once per distinct role and claims, and delivers by each verdict', async () => {
    const alice = token('alice');
    const database = fakeDatabase((readers) =>
      readers.map((reader, index) => seen(index, reader.claims.includes('alice'))),
    );
    // Two channels on one token, a third on an equal copy of it, and bob.
    const { logged, sent } = await deliverOnce(database, [alice, alice, token('alice'), token('bob')]);
    expect(database.statements).toHaveLength(1);
    expect(database.statements[0]?.map((reader) => JSON.parse(reader.claims) as { sub: string })).toEqual([
      { role: 'authenticated', sub: 'alice' },
      { role: 'authenticated', sub: 'bob' },
    ]);
    expect(sent.map((frames) => frames.length)).toEqual([1, 1, 1, 0]);
    expect(logged).toEqual([]);
  });

  it(`asks about more than ${READERS_PER_STATEMENT} distinct readers ${READERS_PER_STATEMENT} at a time, and keeps each verdict with its reader`, async () => {
    const database = fakeDatabase((readers) =>
      readers.map((reader, index) => seen(index, !reader.claims.includes('"odd-'))),
    );
    const tokens = Array.from({ length: READERS_PER_STATEMENT + 3 }, (_, index) =>
      token(`${index % 2 === 1 ? 'odd' : 'even'}-${index}`),
    );
    const { sent } = await deliverOnce(database, tokens);
    expect(database.statements.map((readers) => readers.length)).toEqual([READERS_PER_STATEMENT, 3]);
    expect(sent.map((frames) => frames.length)).toEqual(tokens.map((_, index) => (index % 2 === 1 ? 0 : 1)));
  });

  it('spreads 200 distinct readers over 4 connections side by side when it may, and keeps each verdict with its reader', async () => {
    const database = fakeDatabase((readers) =>
      readers.map((reader, index) => seen(index, !reader.claims.includes('"odd-'))),
    );
    const tokens = Array.from({ length: 200 }, (_, index) => token(`${index % 2 === 1 ? 'odd' : 'even'}-${index}`));
    const { sent, logged } = await deliverOnce(database, tokens, 4);
    expect(database.statements.map((readers) => readers.length)).toEqual([50, 50, 50, 50]);
    expect(database.mostAtOnce).toBe(4);
    expect(sent.map((frames) => frames.length)).toEqual(tokens.map((_, index) => (index % 2 === 1 ? 0 : 1)));
    expect(logged).toEqual([]);
  });

  it('asks one statement at a time with one connection (PGlite), however many readers', async () => {
    const database = fakeDatabase((readers) => readers.map((_, index) => seen(index, true)));
    const tokens = Array.from({ length: 200 }, (_, index) => token(`reader-${index}`));
    await deliverOnce(database, tokens);
    expect(database.statements.map((readers) => readers.length)).toEqual([200]);
    expect(database.mostAtOnce).toBe(1);
  });

  it('withholds the change from the readers of a slice whose statement failed, and only from them', async () => {
    const failure = new Error('the connection was lost');
    const database = fakeDatabase((readers) =>
      readers.some((reader) => reader.claims.includes('"reader-0"'))
        ? failure
        : readers.map((_, index) => seen(index, true)),
    );
    const tokens = Array.from({ length: 100 }, (_, index) => token(`reader-${index}`));
    const { sent, logged } = await deliverOnce(database, tokens, 4);
    expect(logged).toEqual([failure]);
    expect(sent.map((frames) => frames.length)).toEqual(tokens.map((_, index) => (index < 25 ? 0 : 1)));
  });

  it('logs an unexpected failure of the statement instead of swallowing it, and withholds the change', async () => {
    const failure = new Error('the database went away');
    const { logged, sent } = await deliverOnce(
      fakeDatabase(() => failure),
      [token('alice')],
    );
    expect(logged).toEqual([failure]);
    expect(sent).toEqual([[]]);
  });

  it("logs an unexpected failure of one reader's check (a policy that raises), and withholds the change from that reader only", async () => {
    const database = fakeDatabase((readers) =>
      readers.map((reader, index) =>
        reader.claims.includes('alice') ? seen(index, false, 'P0001') : seen(index, true),
      ),
    );
    const { logged, sent } = await deliverOnce(database, [token('alice'), token('bob')]);
    expect(logged).toEqual([expect.objectContaining({ code: 'P0001', message: 'failed with P0001' })]);
    expect(sent.map((frames) => frames.length)).toEqual([0, 1]);
  });

  it('stays quiet when the subscriber simply may not read the row (42501), and closes the channel whose session ended', async () => {
    const database = fakeDatabase((readers) =>
      readers.map((reader, index) => seen(index, false, reader.claims.includes('alice') ? '42501' : 'LB401')),
    );
    const { logged, sent } = await deliverOnce(database, [token('alice'), token('bob')]);
    expect(logged).toEqual([]);
    expect(sent).toEqual([
      [],
      [expect.objectContaining({ event: 'closed', payload: 'The session of this token has ended' })],
    ]);
  });

  it('closes a channel whose token has expired instead of asking about it', async () => {
    const database = fakeDatabase((readers) => readers.map((_, index) => seen(index, true)));
    const expired: VerifiedToken = {
      role: 'authenticated',
      claims: { role: 'authenticated', sub: 'carol', exp: Math.floor(Date.now() / 1000) - 5 },
    };
    const { logged, sent } = await deliverOnce(database, [token('alice'), expired]);
    expect(logged).toEqual([]);
    expect(database.statements).toEqual([[expect.objectContaining({ role: 'authenticated' })]]);
    expect(sent[0]?.map((frame) => frame.event)).toEqual(['postgres_changes']);
    expect(sent[1]).toEqual([expect.objectContaining({ event: 'closed', payload: 'Token has expired 5 seconds ago' })]);
  });
});

describe('how the readers of one change are cut into statements', () => {
  it(`cuts them into ${READERS_PER_STATEMENT}s for one connection`, () => {
    expect(checkSlices(READERS_PER_STATEMENT * 2 + 1, 1)).toEqual([
      { start: 0, end: READERS_PER_STATEMENT },
      { start: READERS_PER_STATEMENT, end: READERS_PER_STATEMENT * 2 },
      { start: READERS_PER_STATEMENT * 2, end: READERS_PER_STATEMENT * 2 + 1 },
    ]);
  });

  it(`shares them evenly over several connections, never fewer than ${MIN_READERS_PER_SLICE} nor more than ${READERS_PER_STATEMENT} to a statement`, () => {
    expect(checkSlices(10, 4)).toEqual([{ start: 0, end: 10 }]);
    expect(checkSlices(60, 4)).toEqual([
      { start: 0, end: 25 },
      { start: 25, end: 50 },
      { start: 50, end: 60 },
    ]);
    expect(checkSlices(201, 4).map(({ start, end }) => end - start)).toEqual([51, 51, 51, 48]);
    expect(
      checkSlices(READERS_PER_STATEMENT * 8, 4).every(({ start, end }) => end - start === READERS_PER_STATEMENT),
    ).toBe(true);
    expect(checkSlices(0, 4)).toEqual([]);
  });
});

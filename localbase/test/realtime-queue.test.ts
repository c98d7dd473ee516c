// Reading realtime's queues as several servers on one PostgreSQL do (queue.ts): each with a cursor
// of its own, every committed item read by every reader exactly once, an item of a transaction that
// commits late read when it commits (never skipped because later ids were read first), a rolled-back
// one never, and a window larger than one read taken in pages without a gap or a repeat. On the
// embedded PostgreSQL, since it needs transactions open side by side on several sessions.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSharedPostgres, type SharedPostgres } from '#tools/testing/shared-postgres.ts';
import { installCapture, syncCaptureTriggers } from '../src/realtime/capture.ts';
import {
  cursorAtNow,
  readQueues,
  READ_BATCH,
  START_OF_QUEUE,
  type Cursor,
  type QueuedItem,
} from '../src/realtime/queue.ts';

let shared: SharedPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  shared = await startSharedPostgres();
  pool = shared.database.pool;
  await installCapture(pool);
  await pool.query(`create table public.rq_notes (id bigint primary key, body text not null);
    alter publication supabase_realtime add table public.rq_notes`);
  await syncCaptureTriggers(pool);
}, 180_000);

afterAll(async () => {
  await shared?.close();
});

let nextNote = 1;

/** A note's id, as the reader sees it: a change's row or a broadcast's payload. */
function noteOf(item: QueuedItem): number {
  return item.kind === 'change'
    ? Number(item.change.record?.id)
    : Number((item.broadcast.payload as { note: number }).note);
}

/** Reads until the cursor's window is done; answers the notes read, in order, and the cursor. */
async function readAll(cursor: Cursor): Promise<{ notes: number[]; cursor: Cursor }> {
  const notes: number[] = [];
  let at = cursor;
  do {
    const read = await readQueues(pool, at);
    notes.push(...read.items.map(noteOf));
    at = read.cursor;
  } while (at.window);
  return { notes, cursor: at };
}

async function writeNote(client: pg.Pool | pg.PoolClient = pool): Promise<number> {
  const id = nextNote;
  nextNote += 1;
  await client.query('insert into public.rq_notes (id, body) values ($1, $2)', [id, `note ${id}`]);
  return id;
}

describe("realtime's queues, read by several servers", () => {
  it('give every reader every committed item once, changes and database broadcasts in the order written', async () => {
    let first = await cursorAtNow(pool);
    let second = first;
    const a = await writeNote();
    const sent = nextNote;
    nextNote += 1;
    await pool.query(`select realtime.send(jsonb_build_object('note', $1::int), 'ping', 'rq-topic', false)`, [sent]);
    const b = await writeNote();
    const readByFirst = await readAll(first);
    first = readByFirst.cursor;
    expect(readByFirst.notes).toEqual([a, sent, b]);
    // The first server's reading took nothing from the second's.
    const readBySecond = await readAll(second);
    second = readBySecond.cursor;
    expect(readBySecond.notes).toEqual([a, sent, b]);
    // Read again: nothing new, for either.
    expect((await readAll(first)).notes).toEqual([]);
    expect((await readAll(second)).notes).toEqual([]);
  });

  it('reads an item of a transaction that commits after later ids were read, once, when it commits', async () => {
    let cursor = await cursorAtNow(pool);
    const slow = await pool.connect();
    try {
      await slow.query('begin');
      const early = await writeNote(slow);
      const late = await writeNote();
      const beforeCommit = await readAll(cursor);
      cursor = beforeCommit.cursor;
      expect(beforeCommit.notes).toEqual([late]);
      await slow.query('commit');
      const afterCommit = await readAll(cursor);
      cursor = afterCommit.cursor;
      expect(afterCommit.notes).toEqual([early]);
      expect((await readAll(cursor)).notes).toEqual([]);
    } finally {
      slow.release();
    }
  });

  it('never reads an item whose transaction rolled back', async () => {
    const cursor = await cursorAtNow(pool);
    const client = await pool.connect();
    try {
      await client.query('begin');
      await writeNote(client);
      await client.query('rollback');
    } finally {
      client.release();
    }
    const kept = await writeNote();
    expect((await readAll(cursor)).notes).toEqual([kept]);
  });

  it(`reads a window of more than ${READ_BATCH} items in pages, in order, without a gap or a repeat`, async () => {
    const cursor = await cursorAtNow(pool);
    const first = nextNote;
    const count = READ_BATCH * 2 + 7;
    await pool.query(
      `insert into public.rq_notes (id, body) select i, 'bulk ' || i from generate_series($1::bigint, $2::bigint) i`,
      [first, first + count - 1],
    );
    nextNote += count;
    const page = await readQueues(pool, cursor);
    expect(page.items).toHaveLength(READ_BATCH);
    expect(page.cursor.window).toBeDefined();
    const rest = await readAll(page.cursor);
    expect([...page.items.map(noteOf), ...rest.notes]).toEqual(Array.from({ length: count }, (_, i) => first + i));
  });

  it('reads from the start of the queues for a cursor that has read nothing yet', async () => {
    const id = await writeNote();
    const { notes } = await readAll(START_OF_QUEUE);
    expect(notes).toContain(id);
  });
});

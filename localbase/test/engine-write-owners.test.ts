// Whose writes localbase's own work commits, as PGlite's engine counts them (db/snapshot-reads.ts:
// a student always reads back her own writes, while another's may reach her late during a stall).
// An owner transaction done for one user is hers; one nobody claims is everyone's (untagged); a
// read-only one is nobody's write. The presence sweep and the realtime queue drain are localbase's
// own: they hold back no student.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enginePoolConfig, MEMORY, PgliteEngine } from '#db/pglite-engine.ts';
import { testDatabaseSnapshot } from '#tools/testing/test-database.ts';
import { expireStalePresence } from '../src/housekeeping.ts';
import { installCapture } from '../src/realtime/capture.ts';
import { drainQueues } from '../src/realtime/queue.ts';
import { userCaller, withOwnerTransaction } from '../src/request-transaction.ts';

let engine: PgliteEngine;
let pool: pg.Pool;

const ADA = '00000000-0000-4000-8000-00000000000a';
const BO = '00000000-0000-4000-8000-00000000000b';

beforeAll(async () => {
  // The migrated schema (its roles, the presence sweep), as localbase finds it.
  engine = new PgliteEngine({ pgdata: MEMORY, loadDataDir: await testDatabaseSnapshot() });
  await engine.start();
  pool = new pg.Pool(enginePoolConfig(engine));
  pool.on('error', () => {});
  await installCapture(pool);
  await pool.query('create table public.marks (id serial primary key, note text)');
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await engine?.close();
});

/** Every exchange so far counted: a reply's end is counted just after the client has it. */
async function counted(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  return engine.writes;
}

describe('whose writes an owner transaction commits', () => {
  it("is the user's that the work names: hers to read back, not another's", async () => {
    const before = await counted();
    await withOwnerTransaction(pool, async (client, writesFor) => {
      await client.query("insert into public.marks (note) values ('for ada')");
      writesFor(ADA);
    });
    expect(engine.writesSeenBy(userCaller(ADA))).toBeGreaterThan(before);
    expect(engine.writesSeenBy(userCaller(BO))).toBeLessThanOrEqual(before);
  });

  it("is everyone's when the work names nobody", async () => {
    const before = await counted();
    await withOwnerTransaction(pool, (client) => client.query("insert into public.marks (note) values ('for all')"));
    expect(engine.writesSeenBy(userCaller(BO))).toBeGreaterThan(before);
  });

  it('is nothing when it only reads: the count does not move, and a write is refused', async () => {
    const before = await counted();
    const { rows } = await withOwnerTransaction(
      pool,
      (client) => client.query('select count(*)::int as n from public.marks'),
      {
        readOnly: true,
      },
    );
    expect(rows).toEqual([{ n: 2 }]);
    expect(await counted()).toBe(before);
    await expect(
      withOwnerTransaction(pool, (client) => client.query("insert into public.marks (note) values ('x')"), {
        readOnly: true,
      }),
    ).rejects.toMatchObject({ code: '25006' });
  });
});

describe("localbase's own background work", () => {
  it('the presence sweep and the realtime drain count as writes, but as upkeep nobody reads back', async () => {
    const before = await counted();
    const readable = engine.lastReadableWrite;
    await expireStalePresence(pool);
    await drainQueues(pool);
    expect(await counted()).toBeGreaterThan(before);
    expect(engine.writesSeenBy(userCaller(BO))).toBeLessThanOrEqual(before);
    expect(engine.lastReadableWrite).toBe(readable);
  });
});

// Housekeeping calls expire_stale_presence() when the community schema provides it, and does
// nothing (without failing) while it does not exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { expireStalePresence } from '../src/housekeeping.ts';

let database: Database;

beforeAll(async () => {
  database = await openParityDatabase();
});

afterAll(async () => {
  await database?.close();
});

describe('expireStalePresence', () => {
  it('runs the sweep function when it exists, and reports when it does not', async () => {
    const exists = await database.pool.query(
      "select to_regprocedure('public.expire_stale_presence()') is not null as found",
    );
    if (!exists.rows[0]?.found) {
      expect(await expireStalePresence(database.pool)).toBe(false);
      await database.pool.query(`
        create table private.lb_sweeps (at timestamptz not null default now());
        create function public.expire_stale_presence() returns void language sql security definer set search_path = ''
          as $$ insert into private.lb_sweeps default values $$;`);
      expect(await expireStalePresence(database.pool)).toBe(true);
      const sweeps = await database.pool.query('select count(*)::int as n from private.lb_sweeps');
      expect(sweeps.rows[0]?.n).toBe(1);
    } else {
      expect(await expireStalePresence(database.pool)).toBe(true);
    }
  });
});

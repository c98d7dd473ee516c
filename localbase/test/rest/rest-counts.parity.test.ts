// Counts and ranges, as PostgREST answers them: exact, planned (the planner's estimate of the
// count query) and estimated (exact up to db-max-rows, else the larger of both); 206 Partial
// Content with a Content-Range when a range leaves rows out, 416 past the end; the Range header;
// counts on functions, including those that return one value.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localbase } from '../../server.ts';
import { clientFor, managementQuery } from '../clients.ts';
import { rest, startFixtureStack } from '../postgrest-fixture.ts';

let localbase: Localbase;
let capped: Localbase;
let db: SupabaseClient;

beforeAll(async () => {
  localbase = await startFixtureStack();
  db = clientFor(localbase);
  // 300 generated rows, analysed, so the planner's estimate is known and close.
  const seeded = await managementQuery(
    localbase,
    'create table public.big as select g as id from generate_series(1, 300) g; analyze public.big;',
  );
  expect(seeded.status).toBe(201);
});

afterAll(async () => {
  await localbase?.close();
  await capped?.close();
});

async function planned(query: string): Promise<number> {
  const response = await managementQuery(localbase, `explain (format json) ${query}`);
  const [row] = (await response.json()) as { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[];
  return row?.['QUERY PLAN'][0].Plan['Plan Rows'] as number;
}

describe('count=exact', () => {
  it('answers 200 with the total when everything fits, 206 when a range leaves rows out', async () => {
    const all = await db.from('films').select('id', { count: 'exact' });
    expect(all.status).toBe(200);
    expect(all.count).toBe(5);
    const page = await rest(localbase, 'films?select=id&order=id&limit=2&offset=1', {
      headers: { prefer: 'count=exact' },
    });
    expect(page.status).toBe(206);
    expect(page.headers.get('content-range')).toBe('1-2/5');
    expect(page.headers.get('preference-applied')).toBe('count=exact');
    const viaClient = await db.from('films').select('id', { count: 'exact' }).range(0, 1);
    expect(viaClient.status).toBe(206);
    expect(viaClient.count).toBe(5);
  });

  it('counts rows matching the filters and !inner embeds, not the embedded rows', async () => {
    const { count, data } = await db
      .from('films')
      .select('title,roles!inner(character)', { count: 'exact' })
      .eq('roles.character', 'The Wolf');
    expect(count).toBe(1);
    expect(data).toHaveLength(1);
    const none = await rest(localbase, 'films?id=gt.100', { headers: { prefer: 'count=exact' } });
    expect(none.status).toBe(200);
    expect(none.headers.get('content-range')).toBe('*/0');
  });

  it('answers a HEAD with the count and no body', async () => {
    const { count, data, status } = await db.from('films').select('*', { count: 'exact', head: true }).lte('id', 2);
    expect(status).toBe(200);
    expect(count).toBe(2);
    expect(data).toBeNull();
  });

  it('answers an offset past the end with 416 PGRST103', async () => {
    const { status, json, headers } = await rest(localbase, 'films?offset=10', { headers: { prefer: 'count=exact' } });
    expect(status).toBe(416);
    expect(headers.get('content-range')).toBe('*/5');
    expect(json).toEqual({
      code: 'PGRST103',
      details: 'An offset of 10 was requested, but there are only 5 rows.',
      hint: null,
      message: 'Requested range not satisfiable',
    });
  });
});

describe('ranges without a count', () => {
  it('reports the range with an unknown total', async () => {
    const { status, headers } = await rest(localbase, 'films?select=id&order=id&limit=3');
    expect(status).toBe(200);
    expect(headers.get('content-range')).toBe('0-2/*');
  });

  it('reads the Range header, intersected with limit and offset', async () => {
    const ranged = await rest(localbase, 'films?select=id&order=id', {
      headers: { range: '1-3', 'range-unit': 'items' },
    });
    expect(ranged.json).toEqual([{ id: 2 }, { id: 3 }, { id: 4 }]);
    expect(ranged.headers.get('content-range')).toBe('1-3/*');
    const both = await rest(localbase, 'films?select=id&order=id&limit=2', { headers: { range: '1-' } });
    expect(both.json).toEqual([{ id: 2 }]);
    expect(both.headers.get('content-range')).toBe('1-1/*');
  });

  it('refuses a negative limit (416 PGRST103) and ignores one that is not a number', async () => {
    const negative = await rest(localbase, 'films?limit=-1');
    expect(negative.status).toBe(416);
    expect(negative.json).toMatchObject({
      code: 'PGRST103',
      details: 'Limit should be greater than or equal to zero.',
    });
    const ignored = await rest(localbase, 'films?select=id&limit=abc');
    expect(ignored.status).toBe(200);
    expect(ignored.json).toHaveLength(5);
    const zero = await rest(localbase, 'films?select=id&limit=0', { headers: { prefer: 'count=exact' } });
    expect(zero.status).toBe(206);
    expect(zero.json).toEqual([]);
    expect(zero.headers.get('content-range')).toBe('*/5');
  });
});

describe('count=planned and count=estimated', () => {
  it('planned: the planner estimate of the count query, as EXPLAIN gives it', async () => {
    const expected = await planned('select 1 from public.big where id > 100');
    const { count, status } = await db.from('big').select('id', { count: 'planned' }).gt('id', 100).limit(10);
    expect(count).toBe(expected);
    expect(status).toBe(206);
  });

  it('estimated without db-max-rows: the larger of the exact count and the estimate', async () => {
    const estimate = await planned('select 1 from public.big where id <= 50');
    const { count } = await db.from('big').select('id', { count: 'estimated' }).lte('id', 50).limit(1);
    expect(count).toBe(Math.max(50, estimate));
  });

  it('estimated with db-max-rows: exact below it, the estimate above it', async () => {
    capped = await startFixtureStack({ maxRows: 100 });
    expect(
      (
        await managementQuery(
          capped,
          'create table public.big as select g as id from generate_series(1, 300) g; analyze public.big;',
        )
      ).status,
    ).toBe(201);
    const client = clientFor(capped);
    const small = await client.from('big').select('id', { count: 'estimated' }).lte('id', 40);
    expect(small.count).toBe(40);
    const response = await managementQuery(capped, 'explain (format json) select 1 from public.big');
    const estimate = ((await response.json()) as { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[])[0]?.[
      'QUERY PLAN'
    ][0].Plan['Plan Rows'] as number;
    const large = await client.from('big').select('id', { count: 'estimated' });
    expect(large.count).toBe(Math.max(101, estimate));
    // db-max-rows also caps every answer.
    expect(large.data).toHaveLength(100);
  });
});

describe('counts on functions', () => {
  it('counts the rows a set-returning function answers', async () => {
    const { count, data } = await db.rpc('getallfilms', {}, { count: 'exact' }).select('id').gte('id', 3);
    expect(count).toBe(3);
    expect(data).toHaveLength(3);
    const page = await rest(localbase, 'rpc/film_titles?limit=2', { headers: { prefer: 'count=exact' } });
    expect(page.status).toBe(206);
    expect(page.headers.get('content-range')).toBe('0-1/5');
  });

  it('counts one for a function that returns a single value or row', async () => {
    const scalar = await db.rpc('film_count', {}, { count: 'exact' });
    expect(scalar.data).toBe(5);
    expect(scalar.count).toBe(1);
    const row = await rest(localbase, 'rpc/film_by_id?p_id=4', { headers: { prefer: 'count=exact' } });
    expect(row.headers.get('content-range')).toBe('0-0/1');
    const uncounted = await rest(localbase, 'rpc/film_count');
    expect(uncounted.headers.get('content-range')).toBe('0-0/*');
  });
});

// Writes as PostgREST answers them: upsert 201 when it inserted and 200 when it only updated,
// `Prefer: missing=default`, `max-affected` with `handling=strict` refused with PGRST124 and
// nothing changed, strict handling of unknown preferences (PGRST122), PUT, return=headers-only,
// the columns parameter, CSV bodies; and the features PostgREST keeps off by default
// (aggregates, tx=rollback) answered as it answers them.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientFor, managementQuery } from '../clients.ts';
import { rest, startFixtureStack } from '../postgrest-fixture.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startFixtureStack);
let db: SupabaseClient;

beforeAll(async () => {
  db = clientFor(localbase);
});

async function counters(): Promise<{ id: number; name: string | null; value: number | null; note: string | null }[]> {
  const response = await managementQuery(localbase, 'select id, name, value, note from public.counters order by id');
  return (await response.json()) as { id: number; name: string | null; value: number | null; note: string | null }[];
}

const json = (body: unknown) => JSON.stringify(body);

/** supabase-js offers .maxAffected() only to clients typed for PostgREST 13+; this one is untyped. */
function maxAffected(builder: unknown, rows: number): PromiseLike<{ status: number; error: { code: string } | null }> {
  return (
    builder as { maxAffected(rows: number): PromiseLike<{ status: number; error: { code: string } | null }> }
  ).maxAffected(rows);
}

describe('inserts and upserts', () => {
  it('inserts with 201 and an unknown total, or the count when asked', async () => {
    const plain = await rest(localbase, 'counters', { method: 'POST', body: json({ name: 'third', value: 3 }) });
    expect(plain.status).toBe(201);
    expect(plain.text).toBe('');
    expect(plain.headers.get('content-range')).toBe('*/*');
    const counted = await rest(localbase, 'counters', {
      method: 'POST',
      body: json([{ name: 'fourth' }, { name: 'fifth' }]),
      headers: { prefer: 'count=exact' },
    });
    expect(counted.headers.get('content-range')).toBe('*/2');
  });

  it('upserts: 201 when a row was inserted, 200 when every row was only updated', async () => {
    const mixed = await db
      .from('counters')
      .upsert([
        { id: 1, name: 'first', value: 10 },
        { id: 50, name: 'fiftieth', value: 50 },
      ])
      .select('id,value');
    expect(mixed.status).toBe(201);
    expect(mixed.data).toEqual([
      { id: 1, value: 10 },
      { id: 50, value: 50 },
    ]);
    const updatedOnly = await db.from('counters').upsert({ id: 1, name: 'first', value: 11 }).select('value');
    expect(updatedOnly.status).toBe(200);
    expect(updatedOnly.data).toEqual([{ value: 11 }]);
    const minimal = await rest(localbase, 'counters', {
      method: 'POST',
      body: json({ id: 1, name: 'first', value: 12 }),
      headers: { prefer: 'resolution=merge-duplicates' },
    });
    expect(minimal.status).toBe(200);
    expect(minimal.headers.get('preference-applied')).toBe('resolution=merge-duplicates');
    const byName = await db
      .from('counters')
      .upsert({ name: 'second', value: 22 }, { onConflict: 'name' })
      .select('id,value');
    expect(byName.status).toBe(200);
    expect(byName.data).toEqual([{ id: 2, value: 22 }]);
    const ignored = await db
      .from('counters')
      .upsert({ id: 2, name: 'second', value: 99 }, { ignoreDuplicates: true })
      .select('id');
    expect(ignored.status).toBe(201);
    expect(ignored.data).toEqual([]);
    expect((await counters()).find((row) => row.id === 2)?.value).toBe(22);
  });

  it('missing=default: absent keys take their DEFAULT, present nulls stay null (the docs example)', async () => {
    const { status, json: rows } = await rest(localbase, 'counters?columns=name,value,note', {
      method: 'POST',
      body: json([{ name: 'defaulted' }, { name: 'given', value: 15, note: null }]),
      headers: { prefer: 'missing=default, return=representation' },
    });
    expect(status).toBe(201);
    expect(
      (rows as { name: string; value: number; note: string | null }[]).map(({ name, value, note }) => ({
        name,
        value,
        note,
      })),
    ).toEqual([
      { name: 'defaulted', value: 100, note: 'none' },
      { name: 'given', value: 15, note: null },
    ]);
    const viaClient = await db
      .from('counters')
      .insert([{ name: 'client-a' }, { name: 'client-b', value: 7 }], { defaultToNull: false })
      .select('name,value,note');
    expect(viaClient.data).toEqual([
      { name: 'client-a', value: 100, note: 'none' },
      { name: 'client-b', value: 7, note: 'none' },
    ]);
    const nulls = await db
      .from('counters')
      .insert([{ name: 'null-a' }, { name: 'null-b', value: 7 }])
      .select('name,value');
    expect(nulls.data).toEqual([
      { name: 'null-a', value: null },
      { name: 'null-b', value: 7 },
    ]);
  });

  it('refuses a bulk body with differing keys unless columns names them (400 PGRST102)', async () => {
    const { status, json: body } = await rest(localbase, 'counters', {
      method: 'POST',
      body: json([{ name: 'x' }, { value: 1 }]),
    });
    expect(status).toBe(400);
    expect(body).toEqual({ code: 'PGRST102', details: null, hint: null, message: 'All object keys must match' });
  });

  it('refuses a column the table does not have (400 PGRST204)', async () => {
    const { status, json: body } = await rest(localbase, 'counters', {
      method: 'POST',
      body: json({ name: 'x', colour: 'red' }),
    });
    expect(status).toBe(400);
    expect(body).toEqual({
      code: 'PGRST204',
      details: null,
      hint: null,
      message: "Could not find the 'colour' column of 'counters' in the schema cache",
    });
  });

  it('return=headers-only answers a Location for the new row', async () => {
    const { status, headers, text } = await rest(localbase, 'counters', {
      method: 'POST',
      body: json({ id: 77, name: 'located' }),
      headers: { prefer: 'return=headers-only' },
    });
    expect(status).toBe(201);
    expect(text).toBe('');
    expect(headers.get('location')).toBe('/counters?id=eq.77');
    expect(headers.get('preference-applied')).toBe('return=headers-only');
  });

  it('takes CSV bodies (NULL is null)', async () => {
    const { status, json: rows } = await rest(localbase, 'counters?select=name,value,note', {
      method: 'POST',
      body: 'name,value,note\ncsv-one,1,"quoted, with comma"\ncsv-two,NULL,plain\n',
      headers: { 'content-type': 'text/csv', prefer: 'return=representation' },
    });
    expect(status).toBe(201);
    expect(rows).toEqual([
      { name: 'csv-one', value: 1, note: 'quoted, with comma' },
      { name: 'csv-two', value: null, note: 'plain' },
    ]);
  });
});

describe('PUT', () => {
  it('upserts one row by its primary key: 201 inserted, 200 replaced', async () => {
    const created = await rest(localbase, 'counters?id=eq.300', {
      method: 'PUT',
      body: json({ id: 300, name: 'put', value: 1 }),
      headers: { prefer: 'return=representation' },
    });
    expect(created.status).toBe(201);
    const replaced = await rest(localbase, 'counters?id=eq.300', {
      method: 'PUT',
      body: json({ id: 300, name: 'put', value: 2 }),
      headers: { prefer: 'return=representation' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toEqual([{ id: 300, name: 'put', value: 2, note: 'none' }]);
  });

  it('refuses filters other than eq on the whole primary key (405 PGRST105), a mismatch (400 PGRST115), and limits (400 PGRST114)', async () => {
    const wrongFilter = await rest(localbase, 'counters?name=eq.put', {
      method: 'PUT',
      body: json({ id: 300, name: 'put' }),
    });
    expect(wrongFilter.status).toBe(405);
    expect(wrongFilter.json).toMatchObject({ code: 'PGRST105' });
    const mismatch = await rest(localbase, 'counters?id=eq.301', {
      method: 'PUT',
      body: json({ id: 302, name: 'other' }),
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json).toMatchObject({
      code: 'PGRST115',
      message: 'Payload values do not match URL in primary key column(s)',
    });
    expect((await counters()).some((row) => row.id === 301 || row.id === 302)).toBe(false);
    const limited = await rest(localbase, 'counters?id=eq.300&limit=1', {
      method: 'PUT',
      body: json({ id: 300, name: 'put' }),
    });
    expect(limited.status).toBe(400);
    expect(limited.json).toMatchObject({ code: 'PGRST114' });
  });
});

describe('max-affected with handling=strict', () => {
  it('refuses an update or delete touching more rows than allowed (400 PGRST124) and changes nothing', async () => {
    const before = await counters();
    const update = await maxAffected(db.from('counters').update({ note: 'too wide' }).gt('id', 0), 2);
    expect(update.status).toBe(400);
    expect(update.error).toEqual({
      code: 'PGRST124',
      details: `The query affects ${before.length} rows`,
      hint: null,
      message: 'Query result exceeds max-affected preference constraint',
    });
    const remove = await maxAffected(db.from('counters').delete().gt('id', 0), 1);
    expect(remove.status).toBe(400);
    expect(remove.error?.code).toBe('PGRST124');
    expect(await counters()).toEqual(before);
  });

  it('applies a write within the limit, and says so', async () => {
    const { status, headers } = await rest(localbase, 'counters?id=eq.1', {
      method: 'PATCH',
      body: json({ note: 'within' }),
      headers: { prefer: 'handling=strict, max-affected=1' },
    });
    expect(status).toBe(204);
    expect(headers.get('preference-applied')).toBe('handling=strict, max-affected=1');
    expect((await counters()).find((row) => row.id === 1)?.note).toBe('within');
  });

  it('ignores max-affected without strict handling, as PostgREST does', async () => {
    const { status } = await rest(localbase, 'counters?id=gt.0', {
      method: 'PATCH',
      body: json({ note: 'lenient' }),
      headers: { prefer: 'max-affected=1' },
    });
    expect(status).toBe(204);
    expect((await counters()).every((row) => row.note === 'lenient')).toBe(true);
  });

  it('counts the rows a function returns, and refuses it on a function returning one value (PGRST128)', async () => {
    const before = await counters();
    const refused = await rest(localbase, 'rpc/delete_counters', {
      method: 'POST',
      body: json({ p_below: 1000 }),
      headers: { prefer: 'handling=strict, max-affected=1' },
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'PGRST124', details: `The query affects ${before.length} rows` });
    expect(await counters()).toEqual(before);
    const single = await rest(localbase, 'rpc/film_count', {
      method: 'POST',
      body: '{}',
      headers: { prefer: 'handling=strict, max-affected=1' },
    });
    expect(single.status).toBe(400);
    expect(single.json).toEqual({
      code: 'PGRST128',
      details: null,
      hint: null,
      message: 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
    });
  });
});

describe('preferences', () => {
  it('refuses unknown preferences under handling=strict (the docs answer) and ignores them otherwise', async () => {
    const strict = await rest(localbase, 'films?select=id', { headers: { prefer: 'handling=strict, foo, bar' } });
    expect(strict.status).toBe(400);
    expect(strict.json).toEqual({
      code: 'PGRST122',
      message: 'Invalid preferences given with handling=strict',
      details: 'Invalid preferences: foo, bar',
      hint: null,
    });
    const lenient = await rest(localbase, 'films?select=id', { headers: { prefer: 'handling=lenient, foo, bar' } });
    expect(lenient.status).toBe(200);
    expect(lenient.headers.get('preference-applied')).toBe('handling=lenient');
  });

  it('applies a known time zone, ignores an unknown one (the docs behaviour)', async () => {
    await managementQuery(
      localbase,
      "create table public.moments (id int primary key, t timestamptz); insert into public.moments values (1, '2023-10-18 12:37:59.611+00');",
    );
    const zoned = await rest(localbase, 'moments?select=t', { headers: { prefer: 'timezone=America/Los_Angeles' } });
    expect(zoned.json).toEqual([{ t: '2023-10-18T05:37:59.611-07:00' }]);
    expect(zoned.headers.get('preference-applied')).toBe('timezone=America/Los_Angeles');
    const unknown = await rest(localbase, 'moments?select=t', { headers: { prefer: 'timezone=Jupiter/Red_Spot' } });
    expect(unknown.headers.get('preference-applied')).toBeNull();
    const strict = await rest(localbase, 'moments?select=t', {
      headers: { prefer: 'handling=strict, timezone=Jupiter/Red_Spot' },
    });
    expect(strict.status).toBe(400);
  });
});

describe('off, as in PostgREST', () => {
  it('aggregates: 400 PGRST123', async () => {
    for (const select of ['count()', 'value.sum()', 'id,value.avg()']) {
      const { status, json: body } = await rest(localbase, `counters?select=${select}`);
      expect(status).toBe(400);
      expect(body).toEqual({
        code: 'PGRST123',
        details: null,
        hint: null,
        message: 'Use of aggregate functions is not allowed',
      });
    }
  });

  it('tx=rollback: the preference is accepted and ignored; the write is committed', async () => {
    const { data, status } = await db.from('counters').insert({ id: 400, name: 'kept' }).select('id').rollback();
    expect(status).toBe(201);
    expect(data).toEqual([{ id: 400 }]);
    expect((await counters()).some((row) => row.id === 400)).toBe(true);
    const strict = await rest(localbase, 'films?select=id', { headers: { prefer: 'handling=strict, tx=rollback' } });
    expect(strict.status).toBe(200);
  });
});

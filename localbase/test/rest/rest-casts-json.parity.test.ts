// Casts and JSON paths in select, order and filters (PostgREST's documentation examples), through
// supabase-js, on the fixture's people (json_data jsonb) and countries (a composite column and an
// array column).
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientFor } from '../clients.ts';
import { rest, startFixtureStack } from '../postgrest-fixture.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startFixtureStack);
let db: SupabaseClient;

beforeAll(async () => {
  db = clientFor(localbase);
});

describe('casts', () => {
  it('casts selected columns, keeping the column name (the docs answer shape)', async () => {
    const { data } = await db.from('films').select('id::text,rating::text').eq('id', 4);
    expect(data).toEqual([{ id: '4', rating: '8.9' }]);
    const aliased = await db.from('films').select('year:year::text').eq('id', 5);
    expect(aliased.data).toEqual([{ year: '1992' }]);
  });

  it('casts inside embeds and JSON paths', async () => {
    const { data } = await db.from('films').select('title,directors(id::text)').eq('id', 1);
    expect(data).toEqual([{ title: 'Workers Leaving The Lumière Factory In Lyon', directors: { id: '2' } }]);
    const path = await db.from('people').select('age:json_data->age::int').eq('id', 2);
    expect(path.data).toEqual([{ age: 25 }]);
  });

  it('answers a cast to an unknown type as PostgreSQL does, and refuses what is not a type name', async () => {
    const unknown = await rest(localbase, 'films?select=id::nosuchtype');
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ code: '42704' });
    const spliced = await rest(localbase, `films?select=${encodeURIComponent('id::text);drop table films;--')}`);
    expect(spliced.status).toBe(400);
    expect(spliced.json).toMatchObject({ code: 'PGRST100' });
    expect((await db.from('films').select('id')).data).toHaveLength(5);
  });
});

describe('JSON paths', () => {
  it('selects with -> and ->>, named after the last key (the docs answer shape)', async () => {
    const { data } = await db
      .from('people')
      .select('id,json_data->>blood_type,json_data->phones')
      .in('id', [1, 2])
      .order('id');
    expect(data).toEqual([
      { id: 1, blood_type: 'A-', phones: [{ number: '917-929-5745' }] },
      { id: 2, blood_type: 'O+', phones: [] },
    ]);
    const deep = await db.from('people').select('id,json_data->phones->0->>number').eq('id', 1);
    expect(deep.data).toEqual([{ id: 1, number: '917-929-5745' }]);
  });

  it('filters on ->> as text and on -> as JSON (the docs examples)', async () => {
    const text = await db
      .from('people')
      .select('id,json_data->blood_type')
      .eq('json_data->>blood_type', 'A-')
      .order('id');
    expect(text.data).toEqual([
      { id: 1, blood_type: 'A-' },
      { id: 3, blood_type: 'A-' },
    ]);
    const number = await db.from('people').select('id,json_data->age').gt('json_data->age', 14).order('id');
    expect(number.data).toEqual([
      { id: 2, age: 25 },
      { id: 3, age: 15 },
    ]);
  });

  it('orders by a JSON path (the docs example)', async () => {
    const { data } = await db
      .from('people')
      .select('id,json_data->age')
      .not('json_data', 'is', null)
      .order('json_data->>age', { ascending: false });
    expect(data).toEqual([
      { id: 2, age: 25 },
      { id: 3, age: 15 },
      { id: 1, age: 12 },
    ]);
  });

  it('reads composite fields and array elements through to_jsonb (the docs answer)', async () => {
    const { status, json } = await rest(
      localbase,
      'countries?select=id,location->>lat,location->>long,primary_language:languages->0&location->lat=gte.19',
    );
    expect(status).toBe(200);
    expect(json).toEqual([{ id: 5, lat: '19.741755', long: '-155.844437', primary_language: 'en' }]);
    const ordered = await rest(localbase, 'countries?select=name&order=location->>lat');
    expect(ordered.json).toEqual([{ name: 'Peru' }, { name: 'United States' }]);
  });
});

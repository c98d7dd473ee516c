// Content negotiation: JSON, one object (`.single()`), nulls stripped, and CSV are produced;
// an Accept that names only other types (XML, GeoJSON, query plans, which PostgREST keeps off) is
// 406 PGRST107, never JSON with 200.
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

describe('CSV', () => {
  it('answers text/csv with a header line and one line per row', async () => {
    const { data, error } = await db.from('films').select('id,title,year').lte('id', 2).order('id').csv();
    expect(error).toBeNull();
    // Values holding blanks, commas or quotes are quoted, as PostgreSQL writes a record.
    expect(data).toBe(
      'id,title,year\n1,"Workers Leaving The Lumière Factory In Lyon",1895\n2,"The Dickson Experimental Sound Film",1894',
    );
    const raw = await rest(localbase, 'addresses?select=id,name&id=eq.1', { headers: { accept: 'text/csv' } });
    expect(raw.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(raw.text).toBe('id,name\n1,"32 Glenlake Dr.Dearborn, MI 48124"');
  });

  it('answers an empty result with an empty header, and CSV from a function', async () => {
    const empty = await rest(localbase, 'films?id=gt.100', { headers: { accept: 'text/csv' } });
    expect(empty.status).toBe(200);
    expect(empty.text).toBe('\n');
    const fromFunction = await rest(localbase, 'rpc/getallfilms?select=id,language&id=lt.3&order=id', {
      headers: { accept: 'text/csv' },
    });
    expect(fromFunction.text).toBe('id,language\n1,french\n2,english');
  });
});

describe('JSON variants', () => {
  it('.single() answers one object with the vendor type, 406 PGRST116 otherwise', async () => {
    const one = await rest(localbase, 'films?select=id&id=eq.1', {
      headers: { accept: 'application/vnd.pgrst.object+json' },
    });
    expect(one.json).toEqual({ id: 1 });
    expect(one.headers.get('content-type')).toBe('application/vnd.pgrst.object+json; charset=utf-8');
    const many = await db.from('films').select('id').single();
    expect(many.status).toBe(406);
    expect(many.error).toEqual({
      code: 'PGRST116',
      details: 'The result contains 5 rows',
      hint: null,
      message: 'Cannot coerce the result to a single JSON object',
    });
  });

  it('strips nulls when asked (nulls=stripped), for arrays and for one object', async () => {
    const array = await db.from('technical_specs').select('film_id,sound').eq('film_id', 4).stripNulls();
    expect(array.data).toEqual([{ film_id: 4, sound: 'Dolby' }]);
    await managementQuery(localbase, 'update public.technical_specs set sound = null where film_id = 4');
    const stripped = await db.from('technical_specs').select('film_id,sound').eq('film_id', 4).stripNulls();
    expect(stripped.data).toEqual([{ film_id: 4 }]);
    const single = await db.from('technical_specs').select('film_id,sound').eq('film_id', 4).single().stripNulls();
    expect(single.data).toEqual({ film_id: 4 });
  });

  it('picks the first type it produces, by quality', async () => {
    const csvFirst = await rest(localbase, 'films?select=id&id=eq.1', {
      headers: { accept: 'text/xml, text/csv;q=0.9, application/json;q=0.5' },
    });
    expect(csvFirst.text).toBe('id\n1');
    const jsonWins = await rest(localbase, 'films?select=id&id=eq.1', {
      headers: { accept: 'text/csv;q=0.1, application/json' },
    });
    expect(jsonWins.json).toEqual([{ id: 1 }]);
    const any = await rest(localbase, 'films?select=id&id=eq.1', { headers: { accept: '*/*' } });
    expect(any.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('types localbase does not produce', () => {
  it('answers 406 PGRST107 naming what was asked, on reads, writes and calls', async () => {
    const xml = await rest(localbase, 'films', { headers: { accept: 'text/xml' } });
    expect(xml.status).toBe(406);
    expect(xml.json).toEqual({
      code: 'PGRST107',
      details: null,
      hint: null,
      message: 'None of these media types are available: text/xml',
    });
    expect(xml.headers.get('proxy-status')).toBe('PostgREST; error=PGRST107');
    const write = await rest(localbase, 'counters', {
      method: 'POST',
      body: '{"name":"never"}',
      headers: { accept: 'application/xml' },
    });
    expect(write.status).toBe(406);
    const after = await managementQuery(
      localbase,
      "select count(*)::int as n from public.counters where name = 'never'",
    );
    expect(await after.json()).toEqual([{ n: 0 }]);
    const call = await rest(localbase, 'rpc/film_count', { headers: { accept: 'text/plain' } });
    expect(call.status).toBe(406);
  });

  it('GeoJSON: 406 PGRST107', async () => {
    const { status, error } = await db.from('films').select('id').geojson();
    expect(status).toBe(406);
    expect(error).toMatchObject({
      code: 'PGRST107',
      message: 'None of these media types are available: application/geo+json',
    });
  });

  it('query plans are off, as in PostgREST: 406 PGRST107', async () => {
    const { status, error } = await db.from('films').select('id').explain();
    expect(status).toBe(406);
    expect(error).toMatchObject({
      code: 'PGRST107',
      message: 'None of these media types are available: application/vnd.pgrst.plan+text; for="application/json"',
    });
  });
});

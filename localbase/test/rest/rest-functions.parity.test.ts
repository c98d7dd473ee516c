// Functions (`/rpc/fn`) as PostgREST calls them: named arguments by POST and GET, one unnamed
// parameter taking the whole body, overloads, variadic arguments, every result shape, headers
// set from SQL, and the errors for what cannot be called.
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

describe('arguments', () => {
  it('takes named arguments by POST and GET, defaults filling the rest', async () => {
    expect((await db.rpc('add_them', { a: 1, b: 2 })).data).toBe(3);
    expect((await db.rpc('add_them', { a: 1 })).data).toBe(11);
    expect((await db.rpc('add_them', { a: 5 }, { get: true })).data).toBe(15);
    const form = await rest(localbase, 'rpc/add_them', {
      method: 'POST',
      body: 'a=2&b=3',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.json).toBe(5);
  });

  it('gives the whole body to a function of one unnamed json or text parameter', async () => {
    const echoed = await rest(localbase, 'rpc/echo_json', { method: 'POST', body: '[1, {"a": 2}]' });
    expect(echoed.json).toEqual([1, { a: 2 }]);
    const shouted = await rest(localbase, 'rpc/shout', {
      method: 'POST',
      body: 'quiet words',
      headers: { 'content-type': 'text/plain' },
    });
    expect(shouted.json).toBe('QUIET WORDS');
  });

  it('passes variadic arguments as an array, or repeated in the URL', async () => {
    expect((await db.rpc('sum_all', { nums: [1, 2, 3] })).data).toBe(6);
    const repeated = await rest(localbase, 'rpc/sum_all?nums=4&nums=5');
    expect(repeated.json).toBe(9);
  });

  it('refuses two overloads that fit the same names (300 PGRST203)', async () => {
    const { status, json } = await rest(localbase, 'rpc/describe', { method: 'POST', body: '{"p": 1}' });
    expect(status).toBe(300);
    expect(json).toEqual({
      code: 'PGRST203',
      details: null,
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
      message:
        'Could not choose the best candidate function between: public.describe(p => integer), public.describe(p => text)',
    });
  });

  it('answers an unknown function or argument with 404 PGRST202 and PostgREST words', async () => {
    const wrongArgument = await rest(localbase, 'rpc/add_them', { method: 'POST', body: '{"b": 1}' });
    expect(wrongArgument.status).toBe(404);
    expect(wrongArgument.json).toEqual({
      code: 'PGRST202',
      details:
        'Searched for the function public.add_them with parameter b or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.add_them(a, b)',
      message: 'Could not find the function public.add_them(b) in the schema cache',
    });
    const unknown = await rest(localbase, 'rpc/film_cout');
    expect(unknown.json).toEqual({
      code: 'PGRST202',
      details:
        'Searched for the function public.film_cout without parameters, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.film_count',
      message: 'Could not find the function public.film_cout without parameters in the schema cache',
    });
  });
});

describe('results', () => {
  it('scalar, one row, set of scalars, set of rows, nothing (204)', async () => {
    expect((await db.rpc('film_count')).data).toBe(5);
    expect((await db.rpc('film_by_id', { p_id: 2 })).data).toMatchObject({
      id: 2,
      title: 'The Dickson Experimental Sound Film',
    });
    expect((await db.rpc('film_titles')).data).toHaveLength(5);
    const rows = await db.rpc('getallfilms').select('id').gt('year', 1990).order('id');
    expect(rows.data).toEqual([{ id: 4 }, { id: 5 }]);
    const nothing = await rest(localbase, 'rpc/touch_nothing', { method: 'POST', body: '{}' });
    expect(nothing.status).toBe(204);
    expect(nothing.text).toBe('');
  });

  it('answers with the headers a function set in response.headers', async () => {
    const { headers, json } = await rest(localbase, 'rpc/tagged_header');
    expect(json).toBe(1);
    expect(headers.get('x-fixture')).toBe('yes');
  });

  it('runs GET read-only: a function that writes is refused (405 25006)', async () => {
    const { status, json } = await rest(localbase, 'rpc/delete_counters?p_below=100');
    expect(status).toBe(405);
    expect(json).toMatchObject({ code: '25006' });
  });

  it('runs a POST read-only when the function is STABLE or IMMUTABLE, read-write when VOLATILE', async () => {
    expect((await db.rpc('access_mode_stable')).data).toBe('on');
    expect((await db.rpc('access_mode_volatile')).data).toBe('off');
    expect((await db.rpc('access_mode_stable', {}, { get: true })).data).toBe('on');
  });

  it('names the methods a function takes (OPTIONS), and refuses others (405 PGRST101)', async () => {
    const stable = await rest(localbase, 'rpc/film_count', { method: 'OPTIONS' });
    expect(stable.headers.get('allow')).toBe('OPTIONS,GET,HEAD,POST');
    const volatile = await rest(localbase, 'rpc/delete_counters?p_below=1', { method: 'OPTIONS' });
    expect(volatile.headers.get('allow')).toBe('OPTIONS,POST');
    const refused = await rest(localbase, 'rpc/film_count', { method: 'PATCH', body: '{}' });
    expect(refused.status).toBe(405);
    expect(refused.json).toMatchObject({ code: 'PGRST101', message: 'Cannot use the PATCH method on RPC' });
  });
});

describe('tables: OPTIONS and paths', () => {
  it('names the methods of a table, answers the root and deeper paths as PostgREST with OpenAPI off', async () => {
    const options = await rest(localbase, 'films', { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE');
    const root = await rest(localbase, '');
    expect(root.status).toBe(404);
    expect(root.json).toMatchObject({ code: 'PGRST126', message: 'Root endpoint metadata is disabled' });
    const deep = await rest(localbase, 'films/1');
    expect(deep.status).toBe(404);
    expect(deep.json).toMatchObject({ code: 'PGRST125', message: 'Invalid path specified in request URL' });
  });
});

// Schema profiles: with `public` and `archive` exposed (Supabase's `[api] schemas`), supabase-js
// `.schema('archive')` reads with Accept-Profile and writes with Content-Profile; a schema not
// exposed is 406 PGRST106; the answer names its schema in Content-Profile. With only `public`
// exposed (the default), no other schema is reachable.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { Localbase } from '../../server.ts';
import { clientFor } from '../clients.ts';
import { rest, startFixtureStack } from '../postgrest-fixture.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startFixtureStack);
let db: SupabaseClient;

beforeAll(async () => {
  db = clientFor(localbase, localbase.serviceRoleKey);
});

describe('a second exposed schema', () => {
  it('reads, embeds and filters in it through Accept-Profile', async () => {
    const { data, error } = await db
      .schema('archive')
      .from('reviews')
      .select('film_title,stars,critics(name)')
      .eq('stars', 4)
      .order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { film_title: 'The Haunted Castle', stars: 4, critics: { name: 'Pauline Kael' } },
      { film_title: 'Reservoir Dogs', stars: 4, critics: { name: 'Roger Ebert' } },
    ]);
    const reverse = await db
      .schema('archive')
      .from('critics')
      .select('name,reviews(film_title)')
      .eq('id', 2)
      .order('id', { referencedTable: 'reviews' });
    expect(reverse.data).toEqual([
      { name: 'Roger Ebert', reviews: [{ film_title: 'Pulp Fiction' }, { film_title: 'Reservoir Dogs' }] },
    ]);
  });

  it('writes in it through Content-Profile, and names the schema in the answer', async () => {
    const inserted = await db
      .schema('archive')
      .from('critics')
      .insert({ id: 3, name: 'Manohla Dargis' })
      .select()
      .single();
    expect(inserted.data).toEqual({ id: 3, name: 'Manohla Dargis' });
    const raw = await rest(localbase, 'critics?id=eq.3', {
      method: 'PATCH',
      token: localbase.serviceRoleKey,
      headers: { 'content-profile': 'archive', prefer: 'return=representation', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'A. O. Scott' }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-profile')).toBe('archive');
    expect(raw.json).toEqual([{ id: 3, name: 'A. O. Scott' }]);
  });

  it('defaults to the first schema, and says so when several are exposed', async () => {
    const response = await rest(localbase, 'films?select=id&id=eq.1');
    expect(response.headers.get('content-profile')).toBe('public');
    const missing = await rest(localbase, 'reviews');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      code: 'PGRST205',
      message: "Could not find the table 'public.reviews' in the schema cache",
    });
  });

  it('does not embed across schemas (each schema has its own relationships)', async () => {
    const { status, json } = await rest(localbase, 'critics?select=name,films(title)', {
      headers: { 'accept-profile': 'archive' },
    });
    expect(status).toBe(400);
    expect(json).toMatchObject({ code: 'PGRST200' });
  });

  it('refuses a schema that is not exposed (406 PGRST106), reading and writing', async () => {
    const read = await rest(localbase, 'users', { headers: { 'accept-profile': 'auth' } });
    expect(read.status).toBe(406);
    expect(read.json).toEqual({
      code: 'PGRST106',
      details: null,
      hint: 'Only the following schemas are exposed: public, archive',
      message: 'Invalid schema: auth',
    });
    const write = await db.schema('private').from('anything').insert({ a: 1 });
    expect(write.status).toBe(406);
    expect(write.error?.code).toBe('PGRST106');
  });
});

describe('the default: public only', () => {
  let single: Localbase;

  beforeAll(async () => {
    single = await startLocalbaseStack();
  });

  afterAll(async () => {
    await single?.close();
  });

  it('answers without Content-Profile, and refuses any other schema', async () => {
    const ok = await rest(single, 'users?select=id', { token: single.serviceRoleKey });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-profile')).toBeNull();
    const refused = await rest(single, 'critics', { headers: { 'accept-profile': 'archive' } });
    expect(refused.status).toBe(406);
    expect(refused.json).toMatchObject({ code: 'PGRST106', hint: 'Only the following schemas are exposed: public' });
  });
});

// Spread (`...embed(columns)`), through supabase-js: a to-one spread lifts the columns into the
// parent; a to-many spread turns each column into an array, all in the same order (PostgREST's
// answers from its documentation, with the fixture's films).
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

describe('spread', () => {
  it('spreads a to-one embed into the parent (the docs answer)', async () => {
    const { data, error } = await db
      .from('films')
      .select('title,...directors(director_first_name:first_name,director_last_name:last_name)')
      .like('title', '*Workers*');
    expect(error).toBeNull();
    expect(data).toEqual([
      {
        title: 'Workers Leaving The Lumière Factory In Lyon',
        director_first_name: 'Louis',
        director_last_name: 'Lumière',
      },
    ]);
  });

  it('spreads a to-one embed next to an aliased top-level column', async () => {
    const { data } = await db
      .from('films')
      .select('film_id:id,...technical_specs(camera,runtime)')
      .in('id', [1, 4])
      .order('id');
    expect(data).toEqual([
      { film_id: 1, camera: null, runtime: null },
      { film_id: 4, camera: 'Arriflex 35-III', runtime: '02:29:00' },
    ]);
  });

  it('spreads a to-many embed as correlated arrays, ordered by the embed order (the docs answer)', async () => {
    const { data } = await db
      .from('directors')
      .select('first_name,...films(film_titles:title,film_years:year)')
      .like('first_name', 'Quentin*')
      .order('year', { referencedTable: 'films' });
    expect(data).toEqual([
      { first_name: 'Quentin', film_titles: ['Reservoir Dogs', 'Pulp Fiction'], film_years: [1992, 1994] },
    ]);
    const empty = await db.from('directors').select('id,...films(title)').eq('id', 1);
    expect(empty.data).toEqual([{ id: 1, title: ['The Dickson Experimental Sound Film'] }]);
  });

  it('nests spreads: to-one inside to-many, and to-many inside to-many (the docs answer)', async () => {
    const { data } = await db
      .from('directors')
      .select(
        'first_name,...films(film_titles:title,film_years:year,...technical_specs(film_runtimes:runtime),...roles(film_characters:character))',
      )
      .like('first_name', 'Quentin*')
      .order('year', { referencedTable: 'films' })
      .order('character', { referencedTable: 'films.roles' });
    expect(data).toEqual([
      {
        first_name: 'Quentin',
        film_titles: ['Reservoir Dogs', 'Pulp Fiction'],
        film_years: [1992, 1994],
        film_runtimes: ['01:39:00', '02:29:00'],
        film_characters: [
          ['Mr. Orange', 'Mr. White'],
          ['Mia Wallace', 'The Wolf', 'Vincent Vega'],
        ],
      },
    ]);
  });

  it('spreads the target of a junction into the junction rows (the docs answer)', async () => {
    const { data } = await db
      .from('films')
      .select('title,actors:roles(character,...actors(first_name,last_name))')
      .eq('id', 3);
    expect(data).toEqual([
      { title: 'The Haunted Castle', actors: [{ character: 'Woman', first_name: 'Jehanne', last_name: "d'Alcy" }] },
    ]);
  });

  it('spreads with a hint and !inner', async () => {
    const { data } = await db
      .from('orders')
      .select('name,...addresses!shipping!inner(ship_to:name)')
      .eq('addresses.city', 'Dearborn')
      .order('id');
    expect(data).toEqual([
      { name: 'Personal Water Filter', ship_to: '30 Glenlake Dr.Dearborn, MI 48124' },
      { name: 'Coffee Machine', ship_to: '32 Glenlake Dr.Dearborn, MI 48124' },
    ]);
  });

  it('refuses an alias on a spread (400 PGRST100)', async () => {
    const { status, json } = await rest(localbase, 'films?select=title,d:...directors(last_name)');
    expect(status).toBe(400);
    expect(json).toMatchObject({
      code: 'PGRST100',
      message: expect.stringContaining('failed to parse select parameter'),
    });
  });
});

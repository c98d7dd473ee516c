// Embedding through views, through supabase-js against the PostgREST fixture: a view that shows a
// foreign key's columns takes part in its relationship, from either side, through joins, other
// views and materialized views, and as an end of a many-to-many; a view that computes the column
// takes part in none; a column shown twice is ambiguous until a hint picks one. Answers
// PostgREST's documentation prints are asserted as printed.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientFor, managementQuery } from '../clients.ts';
import { startFixtureStack } from '../postgrest-fixture.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startFixtureStack);
let db: SupabaseClient;

const VIEWS = `
-- PostgREST's documentation example.
create view public.nominations_view as
  select films.title as film_title, competitions.name as competition_name, nominations.rank,
         nominations.film_id as nominations_film_id, films.id as film_id
  from public.nominations
  join public.films on films.id = nominations.film_id
  join public.competitions on competitions.id = nominations.competition_id;
create view public.film_titles as select f.id as film, f.director_id as made_by, f.title from public.films f;
create view public.director_names as select id as director, last_name from public.directors;
create view public.recent_films as select film, title, made_by from public.film_titles where film > 3;
-- Built on a view of a schema the API does not expose.
create schema backstage;
create view backstage.film_base as select id, director_id, title from public.films;
create view public.backstage_films as select id, director_id as directed_by, title from backstage.film_base;
create view public.computed_directors as select id, director_id + 0 as director_id, title from public.films;
create view public.films_twice as
  select id, director_id as first_director, director_id as second_director, title from public.films;
create materialized view public.film_years as select id, year from public.films;
-- A junction as a view: it shows the junction table's whole primary key and both keys.
create view public.shortlist as select competition_id as competition, film_id as film, rank from public.nominations;
create view public.odd_names as
  select id as ":resorigtbl", director_id as "{director} (id)\\", title as ":resname :title" from public.films;
grant select on public.nominations_view, public.film_titles, public.director_names, public.recent_films,
  public.computed_directors, public.films_twice, public.film_years, public.odd_names, public.shortlist,
  public.backstage_films to anon, authenticated;`;

beforeAll(async () => {
  const created = await managementQuery(localbase, VIEWS);
  expect(created.status).toBe(201);
  db = clientFor(localbase, localbase.serviceRoleKey);
});

describe('a view in a relationship', () => {
  it('embeds the tables a joining view shows keys of, and the many-to-many beyond them (the docs example)', async () => {
    const { data, error } = await db
      .from('nominations_view')
      .select('film_title,films(language),roles(character),actors(last_name,first_name)')
      .eq('rank', 3)
      .order('character', { referencedTable: 'roles' })
      .order('last_name', { referencedTable: 'actors' });
    expect(error).toBeNull();
    expect(data).toEqual([
      {
        film_title: 'Reservoir Dogs',
        films: { language: 'english' },
        roles: [{ character: 'Mr. Orange' }, { character: 'Mr. White' }],
        actors: [
          { last_name: 'Keitel', first_name: 'Harvey' },
          { last_name: 'Roth', first_name: 'Tim' },
        ],
      },
    ]);
  });

  it('goes from a view to a table by its renamed key column, and from the table back to the view', async () => {
    const toTable = await db.from('film_titles').select('title,directors(last_name)').eq('film', 1);
    expect(toTable.error).toBeNull();
    expect(toTable.data).toEqual([
      { title: 'Workers Leaving The Lumière Factory In Lyon', directors: { last_name: 'Lumière' } },
    ]);
    const toView = await db
      .from('directors')
      .select('last_name,film_titles(title)')
      .eq('id', 4)
      .order('title', { referencedTable: 'film_titles' });
    expect(toView.error).toBeNull();
    expect(toView.data).toEqual([
      { last_name: 'Tarantino', film_titles: [{ title: 'Pulp Fiction' }, { title: 'Reservoir Dogs' }] },
    ]);
  });

  it('goes from a view to a view, and through a view over a view, also one the API does not expose', async () => {
    const viewToView = await db.from('film_titles').select('title,director_names(last_name)').eq('film', 3);
    expect(viewToView.error).toBeNull();
    expect(viewToView.data).toEqual([{ title: 'The Haunted Castle', director_names: { last_name: 'Méliès' } }]);
    const nested = await db.from('recent_films').select('title,directors(last_name)').order('film');
    expect(nested.error).toBeNull();
    expect(nested.data).toEqual([
      { title: 'Pulp Fiction', directors: { last_name: 'Tarantino' } },
      { title: 'Reservoir Dogs', directors: { last_name: 'Tarantino' } },
    ]);
    const throughHidden = await db.from('backstage_films').select('title,directors(last_name)').eq('id', 2);
    expect(throughHidden.error).toBeNull();
    expect(throughHidden.data).toEqual([
      { title: 'The Dickson Experimental Sound Film', directors: { last_name: 'Dickson' } },
    ]);
  });

  it('joins a many-to-many whose end is a view, and keeps a one-to-one a one-to-one (materialized view)', async () => {
    const manyToMany = await db
      .from('actors')
      .select('last_name,film_titles(title)')
      .eq('id', 4)
      .order('title', { referencedTable: 'film_titles' });
    expect(manyToMany.error).toBeNull();
    expect(manyToMany.data).toEqual([
      { last_name: 'Keitel', film_titles: [{ title: 'Pulp Fiction' }, { title: 'Reservoir Dogs' }] },
    ]);
    const oneToOne = await db.from('film_years').select('year,technical_specs(camera)').eq('id', 4);
    expect(oneToOne.error).toBeNull();
    expect(oneToOne.data).toEqual([{ year: 1994, technical_specs: { camera: 'Arriflex 35-III' } }]);
  });

  it('joins a many-to-many through a view that shows the junction table and its primary key', async () => {
    // Through the table and through the view over it: two candidates until a hint names one.
    const ambiguous = await db.from('competitions').select('name,films(title)');
    expect(ambiguous.status).toBe(300);
    expect(ambiguous.error).toMatchObject({ code: 'PGRST201' });
    const { data, error } = await db
      .from('competitions')
      .select('name,films!shortlist(title)')
      .eq('id', 1)
      .order('title', { referencedTable: 'films' });
    expect(error).toBeNull();
    expect(data).toEqual([{ name: 'Cannes', films: [{ title: 'Pulp Fiction' }, { title: 'Reservoir Dogs' }] }]);
  });

  it('reads column names that look like the rule text itself as plain names', async () => {
    const { data, error } = await db
      .from('odd_names')
      .select('":resname :title",directors(last_name)')
      .eq('":resorigtbl"', 2);
    expect(error).toBeNull();
    expect(data).toEqual([
      { ':resname :title': 'The Dickson Experimental Sound Film', directors: { last_name: 'Dickson' } },
    ]);
  });
});

describe('what a view does not relate', () => {
  it('a computed key column relates nothing: 400 PGRST200', async () => {
    const { data, error, status } = await db.from('computed_directors').select('title,directors(last_name)');
    expect(data).toBeNull();
    expect(status).toBe(400);
    expect(error).toMatchObject({ code: 'PGRST200' });
  });

  it('a key column shown twice is ambiguous (300 PGRST201) until a hint names the column', async () => {
    const ambiguous = await db.from('films_twice').select('title,directors(last_name)');
    expect(ambiguous.status).toBe(300);
    expect(ambiguous.error).toMatchObject({ code: 'PGRST201' });
    expect(JSON.stringify(ambiguous.error?.details)).toContain('first_director');
    expect(JSON.stringify(ambiguous.error?.details)).toContain('second_director');
    const hinted = await db.from('films_twice').select('title,directors!second_director(last_name)').eq('id', 4);
    expect(hinted.error).toBeNull();
    expect(hinted.data).toEqual([{ title: 'Pulp Fiction', directors: { last_name: 'Tarantino' } }]);
  });
});

// Resource embedding, through supabase-js against the fixture (films, directors, actors, orders
// with two addresses, employees...): every relationship shape, disambiguation, join types,
// aliases, nesting, filters, order and limits on embedded resources, embedding in function
// results and after writes, and the errors PostgREST gives. Answers PostgREST's documentation
// prints are asserted as printed.
import type { SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { clientFor } from '../clients.ts';
import { rest, startFixtureStack } from '../postgrest-fixture.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const original = pg.Client.prototype.query;
const localbase = fileFixture(startFixtureStack);
let db: SupabaseClient;

beforeAll(async () => {
  db = clientFor(localbase, localbase.serviceRoleKey);
});

const DOCS_FILMS = [
  { title: 'Workers Leaving The Lumière Factory In Lyon', directors: { id: 2, last_name: 'Lumière' } },
  { title: 'The Dickson Experimental Sound Film', directors: { id: 1, last_name: 'Dickson' } },
  { title: 'The Haunted Castle', directors: { id: 3, last_name: 'Méliès' } },
];

describe('relationship shapes', () => {
  it('many-to-one embeds an object (the docs answer)', async () => {
    const { data, error } = await db.from('films').select('title,directors(id,last_name)').lte('id', 3).order('id');
    expect(error).toBeNull();
    expect(data).toEqual(DOCS_FILMS);
  });

  it('aliases an embed', async () => {
    const { data } = await db.from('films').select('title,director:directors(id,last_name)').eq('id', 1);
    expect(data).toEqual([
      { title: 'Workers Leaving The Lumière Factory In Lyon', director: { id: 2, last_name: 'Lumière' } },
    ]);
  });

  it('one-to-many embeds an array (the docs answer)', async () => {
    const { data } = await db.from('directors').select('last_name,films(title)').lte('id', 3).order('id');
    expect(data).toEqual([
      { last_name: 'Dickson', films: [{ title: 'The Dickson Experimental Sound Film' }] },
      { last_name: 'Lumière', films: [{ title: 'Workers Leaving The Lumière Factory In Lyon' }] },
      { last_name: 'Méliès', films: [{ title: 'The Haunted Castle' }] },
    ]);
  });

  it('many-to-many goes through the junction table', async () => {
    const { data } = await db
      .from('actors')
      .select('first_name,films(title)')
      .in('id', [1, 4])
      .order('id')
      .order('id', { referencedTable: 'films' });
    expect(data).toEqual([
      { first_name: 'Jehanne', films: [{ title: 'The Haunted Castle' }] },
      { first_name: 'Harvey', films: [{ title: 'Pulp Fiction' }, { title: 'Reservoir Dogs' }] },
    ]);
  });

  it('one-to-one embeds an object from either side', async () => {
    const specs = await db.from('films').select('title,technical_specs(camera)').eq('id', 4);
    expect(specs.data).toEqual([{ title: 'Pulp Fiction', technical_specs: { camera: 'Arriflex 35-III' } }]);
    const film = await db.from('technical_specs').select('runtime,films(title)').eq('film_id', 5);
    expect(film.data).toEqual([{ runtime: '01:39:00', films: { title: 'Reservoir Dogs' } }]);
    const none = await db.from('films').select('title,technical_specs(camera)').eq('id', 1);
    expect(none.data).toEqual([{ title: 'Workers Leaving The Lumière Factory In Lyon', technical_specs: null }]);
  });

  it('self-reference: one-to-many by table name, many-to-one by column name', async () => {
    const children = await db.from('employees').select('last_name,reports:employees(last_name)').eq('id', 1);
    expect(children.data).toEqual([
      { last_name: 'Taylor', reports: [{ last_name: 'Johnson' }, { last_name: 'Miller' }] },
    ]);
    const parent = await db.from('employees').select('last_name,supervisor_id(last_name)').eq('id', 4);
    expect(parent.data).toEqual([{ last_name: 'Wilson', supervisor_id: { last_name: 'Miller' } }]);
  });

  it('computed relationships, to-many and to-one (the docs answers)', async () => {
    const down = await db.from('employees').select('last_name,supervisees(last_name)').eq('id', 1);
    expect(down.data).toEqual([
      { last_name: 'Taylor', supervisees: [{ last_name: 'Johnson' }, { last_name: 'Miller' }] },
    ]);
    const up = await db.from('employees').select('last_name,supervisor(last_name)').eq('id', 3);
    expect(up.data).toEqual([{ last_name: 'Miller', supervisor: { last_name: 'Taylor' } }]);
  });

  it('computed fields are selected like columns', async () => {
    const { data } = await db.from('actors').select('id,full_name').eq('id', 2);
    expect(data).toEqual([{ id: 2, full_name: 'John Travolta' }]);
  });
});

describe('disambiguation', () => {
  it('two foreign keys to the same table: 300 PGRST201 listing both (the docs answer)', async () => {
    const { status, json } = await rest(localbase, 'orders?select=*,addresses(*)');
    expect(status).toBe(300);
    expect(json).toEqual({
      code: 'PGRST201',
      details: [
        {
          cardinality: 'many-to-one',
          embedding: 'orders with addresses',
          relationship: 'billing using orders(billing_address_id) and addresses(id)',
        },
        {
          cardinality: 'many-to-one',
          embedding: 'orders with addresses',
          relationship: 'shipping using orders(shipping_address_id) and addresses(id)',
        },
      ],
      hint: "Try changing 'addresses' to one of the following: 'addresses!billing', 'addresses!shipping'. Find the desired relationship in the 'details' key.",
      message: "Could not embed because more than one relationship was found for 'orders' and 'addresses'",
    });
  });

  it('a hint by foreign key name picks one (the docs answer)', async () => {
    const { data } = await db
      .from('orders')
      .select('name,billing_address:addresses!billing(name),shipping_address:addresses!shipping(name)')
      .eq('id', 1);
    expect(data).toEqual([
      {
        name: 'Personal Water Filter',
        billing_address: { name: '32 Glenlake Dr.Dearborn, MI 48124' },
        shipping_address: { name: '30 Glenlake Dr.Dearborn, MI 48124' },
      },
    ]);
  });

  it('a hint by column, and the one-to-many side by foreign key (the docs answer)', async () => {
    const byColumn = await db.from('orders').select('name,addresses!shipping_address_id(name)').eq('id', 2);
    expect(byColumn.data).toEqual([
      { name: 'Coffee Machine', addresses: { name: '32 Glenlake Dr.Dearborn, MI 48124' } },
    ]);
    const reverse = await db
      .from('addresses')
      .select('name,billing_orders:orders!billing(name),shipping_orders:orders!shipping(name)')
      .eq('id', 1)
      .order('id', { referencedTable: 'billing_orders' });
    expect(reverse.data).toEqual([
      {
        name: '32 Glenlake Dr.Dearborn, MI 48124',
        billing_orders: [{ name: 'Personal Water Filter' }, { name: 'Coffee Machine' }],
        shipping_orders: [{ name: 'Coffee Machine' }],
      },
    ]);
  });

  it('the target may name the foreign key or its column instead of the table', async () => {
    const byKey = await db.from('orders').select('name,billing(city)').eq('id', 1);
    expect(byKey.data).toEqual([{ name: 'Personal Water Filter', billing: { city: 'Dearborn' } }]);
    const byColumn = await db.from('films').select('title,director_id(last_name)').eq('id', 3);
    expect(byColumn.data).toEqual([{ title: 'The Haunted Castle', director_id: { last_name: 'Méliès' } }]);
  });

  it('a many-to-many hint names the junction table', async () => {
    const { data } = await db.from('films').select('title,actors!roles(last_name)').eq('id', 3);
    expect(data).toEqual([{ title: 'The Haunted Castle', actors: [{ last_name: "d'Alcy" }] }]);
  });

  it('no relationship: 400 PGRST200 with a hint naming the close candidate', async () => {
    const { status, json } = await rest(localbase, 'films?select=title,dirs(*)');
    expect(status).toBe(400);
    expect(json).toEqual({
      code: 'PGRST200',
      details:
        "Searched for a foreign key relationship between 'films' and 'dirs' in the schema 'public', but no matches were found.",
      hint: "Perhaps you meant 'directors' instead of 'dirs'.",
      message: "Could not find a relationship between 'films' and 'dirs' in the schema cache",
    });
    const withHint = await rest(localbase, 'orders?select=addresses!nope(*)');
    expect(withHint.json).toMatchObject({
      code: 'PGRST200',
      details:
        "Searched for a foreign key relationship between 'orders' and 'addresses' using the hint 'nope' in the schema 'public', but no matches were found.",
      hint: null,
    });
    const parent = await rest(localbase, 'employes?select=id,films(*)');
    expect(parent.status).toBe(404);
  });
});

describe('join types, nesting, filters on embedded resources', () => {
  it('filters an embed without filtering the top level, then with !inner (the docs answers)', async () => {
    const left = await db
      .from('films')
      .select('title,actors(first_name,last_name)')
      .eq('actors.first_name', 'Jehanne')
      .lte('id', 3)
      .order('id');
    expect(left.data).toEqual([
      { title: 'Workers Leaving The Lumière Factory In Lyon', actors: [] },
      { title: 'The Dickson Experimental Sound Film', actors: [] },
      { title: 'The Haunted Castle', actors: [{ first_name: 'Jehanne', last_name: "d'Alcy" }] },
    ]);
    const inner = await db
      .from('films')
      .select('title,actors!inner(first_name,last_name)')
      .eq('actors.first_name', 'Jehanne');
    expect(inner.data).toEqual([
      { title: 'The Haunted Castle', actors: [{ first_name: 'Jehanne', last_name: "d'Alcy" }] },
    ]);
    const explicitLeft = await db
      .from('films')
      .select('title,actors!left(first_name)')
      .eq('actors.first_name', 'Jehanne');
    expect(explicitLeft.data).toHaveLength(5);
  });

  it('!inner on a to-one embed drops rows without a match, and counts agree', async () => {
    const { data, count } = await db
      .from('films')
      .select('title,technical_specs!inner(camera)', { count: 'exact' })
      .order('id');
    expect(data?.map((film) => film.title)).toEqual(['Pulp Fiction', 'Reservoir Dogs']);
    expect(count).toBe(2);
  });

  it('orders, limits and offsets an embed, and filters it with or=', async () => {
    const { data } = await db
      .from('films')
      .select('title,roles(character)')
      .eq('id', 4)
      .order('character', { referencedTable: 'roles', ascending: false })
      .range(1, 2, { referencedTable: 'roles' });
    expect(data).toEqual([{ title: 'Pulp Fiction', roles: [{ character: 'The Wolf' }, { character: 'Mia Wallace' }] }]);
    const either = await db
      .from('films')
      .select('title,roles(character)')
      .eq('id', 4)
      .or('character.eq.The Wolf,character.eq.Mia Wallace', { referencedTable: 'roles' })
      .order('character', { referencedTable: 'roles' });
    expect(either.data).toEqual([
      { title: 'Pulp Fiction', roles: [{ character: 'Mia Wallace' }, { character: 'The Wolf' }] },
    ]);
  });

  it('nests embeds and filters at any depth, by name or alias', async () => {
    const { data } = await db
      .from('films')
      .select('title,cast:roles(character,actors(first_name))')
      .eq('id', 5)
      .order('character', { referencedTable: 'cast' })
      .eq('cast.actors.first_name', 'Tim');
    expect(data).toEqual([
      {
        title: 'Reservoir Dogs',
        cast: [
          { character: 'Mr. Orange', actors: { first_name: 'Tim' } },
          { character: 'Mr. White', actors: null },
        ],
      },
    ]);
  });

  it('null filters on embeds: anti-join with is.null, an empty embed filters without showing', async () => {
    const without = await db.from('films').select('title,nominations()').is('nominations', null).order('id');
    expect(without.data).toEqual([
      { title: 'Workers Leaving The Lumière Factory In Lyon' },
      { title: 'The Dickson Experimental Sound Film' },
      { title: 'The Haunted Castle' },
    ]);
    const filtered = await db
      .from('films')
      .select('title,actors()')
      .eq('actors.first_name', 'Jehanne')
      .not('actors', 'is', null);
    expect(filtered.data).toEqual([{ title: 'The Haunted Castle' }]);
    const either = await db
      .from('films')
      .select('title,technical_specs(camera),nominations()')
      .or('technical_specs.not.is.null,nominations.not.is.null')
      .order('id');
    expect(either.data?.map((film) => film.title)).toEqual(['Pulp Fiction', 'Reservoir Dogs']);
  });

  it('orders the top level by a to-one embed; refuses a to-many one (400 PGRST118)', async () => {
    const { data } = await db
      .from('films')
      .select('title,directors(last_name)')
      .order('directors(last_name)', { ascending: false })
      .order('id')
      .limit(2);
    expect(data?.map((film) => film.title)).toEqual(['Pulp Fiction', 'Reservoir Dogs']);
    const refused = await rest(localbase, 'directors?select=id,films(title)&order=films(title)');
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      code: 'PGRST118',
      details: "'directors' and 'films' do not form a many-to-one or one-to-one relationship",
      hint: null,
      message: "A related order on 'films' is not possible",
    });
  });

  it('reports an unknown column of an embed as PostgreSQL does, named by its alias in the statement', async () => {
    const toOne = await rest(localbase, 'films?select=title,directors(nope)');
    expect(toOne.status).toBe(400);
    expect(toOne.json).toMatchObject({ code: '42703', message: 'column directors_1.nope does not exist' });
    const manyToMany = await rest(localbase, 'films?select=title,actors(nope)');
    expect(manyToMany.json).toMatchObject({ code: '42703', message: 'column actors.nope does not exist' });
  });

  it('a parameter aimed at something not embedded: 400 PGRST108', async () => {
    const { status, json } = await rest(localbase, 'films?select=title&actors.first_name=eq.John');
    expect(status).toBe(400);
    expect(json).toEqual({
      code: 'PGRST108',
      details: null,
      hint: "Verify that 'actors' is included in the 'select' query parameter.",
      message: "'actors' is not an embedded resource in this request",
    });
  });
});

describe('embedding in function results and after writes', () => {
  it('embeds into rows a function returns (the docs answer)', async () => {
    const { data } = await db.rpc('getallfilms').select('title,directors(id,last_name)').like('title', '*Workers*');
    expect(data).toEqual([
      { title: 'Workers Leaving The Lumière Factory In Lyon', directors: { id: 2, last_name: 'Lumière' } },
    ]);
    const one = await db
      .rpc('film_by_id', { p_id: 4 })
      .select('title,roles(character)')
      .order('character', { referencedTable: 'roles' });
    expect(one.data).toEqual({
      title: 'Pulp Fiction',
      roles: [{ character: 'Mia Wallace' }, { character: 'The Wolf' }, { character: 'Vincent Vega' }],
    });
  });

  it('embeds into the rows an insert, an update and a delete return', async () => {
    const inserted = await db
      .from('films')
      .insert({ id: 100, director_id: 4, title: 'Death Proof', year: 2007 })
      .select('title,year,director:directors(first_name,last_name)')
      .single();
    expect(inserted.data).toEqual({
      title: 'Death Proof',
      year: 2007,
      director: { first_name: 'Quentin', last_name: 'Tarantino' },
    });
    const updated = await db.from('films').update({ year: 2008 }).eq('id', 100).select('year,directors(last_name)');
    expect(updated.data).toEqual([{ year: 2008, directors: { last_name: 'Tarantino' } }]);
    const removed = await db.from('films').delete().eq('id', 100).select('title,directors(first_name)');
    expect(removed.data).toEqual([{ title: 'Death Proof', directors: { first_name: 'Quentin' } }]);
  });
});

describe('one statement per request', () => {
  it('a page of parents with children and grandchildren embedded is one statement, whatever the page size', async () => {
    const sent: string[] = [];
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const first = args[0];
      sent.push(typeof first === 'string' ? first : String((first as { text?: string } | undefined)?.text ?? ''));
      return (original as (...rest: unknown[]) => unknown).apply(this, args) as never;
    });
    try {
      const small = await db.from('directors').select('id,films(id,roles(character,actors(last_name)))').eq('id', 1);
      const smallCount = sent.length;
      sent.length = 0;
      const large = await db.from('directors').select('id,films(id,roles(character,actors(last_name)))').order('id');
      expect(small.data).toHaveLength(1);
      expect(large.data).toHaveLength(4);
      expect(large.data?.[3]?.films).toHaveLength(2);
      // begin, the request setup, the statement, commit: the same four for one row or many.
      expect(sent.length).toBe(smallCount);
      expect(sent.filter((text) => /json_agg/.test(text))).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});

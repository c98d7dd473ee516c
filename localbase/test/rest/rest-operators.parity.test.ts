// Every operator of PostgREST's documentation, with `not.`, the (any)/(all) modifiers and logic
// trees, through supabase-js (raw HTTP where the client has no method), on the fixture's people:
//   1 Oscar Olsen   12 true  {example,new} [10,20) 'The fat cats ate the rats'
//   2 Paula Peterson 25 true {old}         [18,21) 'amusant et drôle' (french)
//   3 Quinn Nolan   15 false {new}         [30,36) no note
//   4 Rita Olson    40 null  {}            no range 'Cats are fat'
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

/** The ids a raw filter query selects, in id order. */
async function idsOf(query: string): Promise<number[]> {
  const { status, json, text } = await rest(localbase, `people?select=id&order=id&${query}`);
  if (status !== 200) throw new Error(`${query}: ${status} ${text}`);
  return (json as { id: number }[]).map((row) => row.id);
}

type PeopleQuery = ReturnType<ReturnType<SupabaseClient['from']>['select']>;

async function clientIds(
  build: (query: PeopleQuery) => PromiseLike<{ data: unknown; error: unknown }>,
): Promise<number[]> {
  const { data, error } = await build(db.from('people').select('id'));
  expect(error).toBeNull();
  return (data as { id: number }[]).map((row) => row.id).sort((a, b) => a - b);
}

describe('comparison and pattern operators', () => {
  it('eq, neq, gt, gte, lt, lte, and not. on each', async () => {
    expect(await clientIds((q) => q.eq('age', 25))).toEqual([2]);
    expect(await clientIds((q) => q.neq('age', 25))).toEqual([1, 3, 4]);
    expect(await clientIds((q) => q.gt('age', 15))).toEqual([2, 4]);
    expect(await clientIds((q) => q.gte('age', 15))).toEqual([2, 3, 4]);
    expect(await clientIds((q) => q.lt('age', 13))).toEqual([1]);
    expect(await clientIds((q) => q.lte('age', 15))).toEqual([1, 3]);
    const negated: [string, number[]][] = [
      ['age=not.eq.25', [1, 3, 4]],
      ['age=not.neq.25', [2]],
      ['age=not.gt.15', [1, 3]],
      ['age=not.gte.15', [1]],
      ['age=not.lt.13', [2, 3, 4]],
      ['age=not.lte.15', [2, 4]],
    ];
    for (const [query, expected] of negated) expect(await idsOf(query)).toEqual(expected);
  });

  it('like and ilike with * for %, match and imatch with regular expressions', async () => {
    expect(await clientIds((q) => q.like('last_name', 'O*'))).toEqual([1, 4]);
    expect(await clientIds((q) => q.ilike('last_name', '*SON'))).toEqual([2, 4]);
    expect(await clientIds((q) => q.not('last_name', 'like', 'O*'))).toEqual([2, 3]);
    expect(await clientIds((q) => q.filter('first_name', 'match', '^[OP]'))).toEqual([1, 2]);
    expect(await clientIds((q) => q.filter('first_name', 'imatch', '^r'))).toEqual([4]);
    expect(await idsOf('first_name=not.imatch.^[opq]')).toEqual([4]);
  });

  it('in, with quoted values holding commas, and not.in', async () => {
    expect(await clientIds((q) => q.in('id', [1, 3]))).toEqual([1, 3]);
    expect(await clientIds((q) => q.in('note', ['Cats are fat', 'amusant et drôle']))).toEqual([2, 4]);
    expect(await idsOf('last_name=in.("Olsen","Nolan,Q")')).toEqual([1]);
    expect(await idsOf('id=not.in.(1,3)')).toEqual([2, 4]);
    expect(await idsOf('id=in.()')).toEqual([]);
  });

  it('is null / not_null / true / false / unknown, and isdistinct', async () => {
    expect(await clientIds((q) => q.is('student', true))).toEqual([1, 2]);
    expect(await clientIds((q) => q.is('student', false))).toEqual([3]);
    expect(await clientIds((q) => q.is('student', null))).toEqual([4]);
    expect(await idsOf('student=is.not_null')).toEqual([1, 2, 3]);
    expect(await idsOf('student=is.unknown')).toEqual([4]);
    expect(await idsOf('student=not.is.unknown')).toEqual([1, 2, 3]);
    expect(await idsOf('student=isdistinct.true')).toEqual([3, 4]);
    expect(await idsOf('student=not.isdistinct.true')).toEqual([1, 2]);
  });
});

describe('array and range operators', () => {
  it('cs, cd and ov on arrays', async () => {
    expect(await clientIds((q) => q.contains('tags', ['example', 'new']))).toEqual([1]);
    expect(await clientIds((q) => q.containedBy('tags', ['example', 'new', 'old']))).toEqual([1, 2, 3, 4]);
    expect(await clientIds((q) => q.overlaps('tags', ['old', 'new']))).toEqual([1, 2, 3]);
    expect(await idsOf('tags=not.cs.{new}')).toEqual([2, 4]);
  });

  it('ov, sl, sr, nxr, nxl, adj on ranges', async () => {
    expect(await clientIds((q) => q.overlaps('age_range', '[15,19)'))).toEqual([1, 2]);
    expect(await clientIds((q) => q.rangeLt('age_range', '[20,30)'))).toEqual([1]);
    expect(await clientIds((q) => q.rangeGt('age_range', '[1,10)'))).toEqual([1, 2, 3]);
    expect(await clientIds((q) => q.rangeLte('age_range', '[0,20)'))).toEqual([1]);
    expect(await clientIds((q) => q.rangeGte('age_range', '[20,100)'))).toEqual([3]);
    expect(await clientIds((q) => q.rangeAdjacent('age_range', '[20,30)'))).toEqual([1, 3]);
    expect(await idsOf('age_range=not.adj.[20,30)')).toEqual([2]);
  });

  it('the docs logic example with quoted range values', async () => {
    expect(await idsOf('or=(age_range.adj."[18,21)",age_range.cs."[30,35]")')).toEqual([3]);
  });
});

describe('full-text search', () => {
  it('fts, plfts, phfts and wfts with a language, on a tsvector column', async () => {
    expect(await clientIds((q) => q.textSearch('my_tsv', 'fat & cats', { config: 'english' }))).toEqual([1, 4]);
    expect(
      await clientIds((q) => q.textSearch('my_tsv', 'The Fat Cats', { config: 'english', type: 'plain' })),
    ).toEqual([1, 4]);
    expect(await clientIds((q) => q.textSearch('my_tsv', 'fat cats', { config: 'english', type: 'phrase' }))).toEqual([
      1,
    ]);
    expect(await clientIds((q) => q.textSearch('my_tsv', 'amusant', { config: 'french', type: 'websearch' }))).toEqual([
      2,
    ]);
    expect(await idsOf('my_tsv=not.phfts(english).fat cats')).toEqual([2, 4]);
  });

  it('converts a text column with to_tsvector', async () => {
    expect(await idsOf('note=fts(english).rats')).toEqual([1]);
    expect(await idsOf('note=wfts(english).cats -rats')).toEqual([4]);
  });
});

describe('modifiers and logic trees', () => {
  it('(any) and (all) on eq, like, gt, and their negations (the docs examples)', async () => {
    expect(await idsOf('last_name=like(any).{O*,P*}')).toEqual([1, 2, 4]);
    expect(await idsOf('last_name=like(all).{O*,*n}')).toEqual([1, 4]);
    expect(await idsOf('id=eq(any).{1,3}')).toEqual([1, 3]);
    expect(await idsOf('age=gt(all).{10,20}')).toEqual([2, 4]);
    expect(await idsOf('last_name=not.ilike(any).{o*,p*}')).toEqual([3]);
    expect(await idsOf('first_name=match(any).{^O,^Q}')).toEqual([1, 3]);
  });

  it('or, and, not.or, not.and, nested (the docs example)', async () => {
    expect(await clientIds((q) => q.or('age.lt.13,age.gt.30'))).toEqual([1, 4]);
    expect(await idsOf('grade=gte.90&student=is.true&or=(age.eq.14,not.and(age.gte.11,age.lte.17))')).toEqual([2]);
    expect(await idsOf('not.or=(age.lt.13,age.gt.30)')).toEqual([2, 3]);
    expect(await idsOf('not.and=(age.gte.0,age.lte.20)')).toEqual([2, 4]);
    expect(await idsOf('and=(or(id.eq.1,id.eq.2),or(student.is.true,age.gt.30))')).toEqual([1, 2]);
    expect(await idsOf('or=(and(tags.cs.{new},age.lt.14),note.plfts(english).fat cats)')).toEqual([1, 4]);
  });

  it('accepts 64 nested levels and refuses 65 with 400 PGRST100', async () => {
    const nest = (levels: number) => `${'or('.repeat(levels - 1)}id.eq.1${')'.repeat(levels - 1)}`;
    expect(await idsOf(`or=(${nest(64)})`)).toEqual([1]);
    const refused = await rest(localbase, `people?or=(${nest(65)})`);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: 'PGRST100',
      details: expect.stringContaining('more than 64 nested levels'),
    });
  });

  it('answers 2,500 nested levels with 400 PGRST100, not a server error', async () => {
    const refused = await rest(localbase, `people?or=(${'or('.repeat(2500)}id.eq.1${')'.repeat(2500)})`);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: 'PGRST100',
      message: expect.stringContaining('failed to parse logic tree'),
    });
    expect((await rest(localbase, 'people?select=id&id=eq.1')).status).toBe(200);
  });

  it('refuses an unknown operator with PostgREST words (400 PGRST100)', async () => {
    const { status, json } = await rest(localbase, 'people?age=noop.0');
    expect(status).toBe(400);
    expect(json).toEqual({
      code: 'PGRST100',
      details: 'unexpected "n" expecting "not" or operator (eq, gt, ...)',
      hint: null,
      message: '"failed to parse filter (noop.0)" (line 1, column 1)',
    });
  });

  it('reports an unknown column as PostgreSQL does (400 42703)', async () => {
    const { status, json } = await rest(localbase, 'people?agee=eq.1');
    expect(status).toBe(400);
    expect(json).toMatchObject({ code: '42703', message: 'column people.agee does not exist' });
  });
});

// The PostgREST URL grammar and the SQL built from it: identifiers quoted, values only as
// parameters, nesting bounded.
import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from './catalog.ts';
import { PostgrestError } from './errors.ts';
import { MAX_NESTING_DEPTH, parseFilterValue, parseLogic, parseOrder, parseQueryParams, parseSelect } from './parse.ts';
import { buildReadPlan } from './plan.ts';
import { Params, readStatement } from './sql.ts';

function refusedWith(run: () => unknown): PostgrestError {
  try {
    run();
  } catch (error) {
    if (error instanceof PostgrestError) return error;
    throw error;
  }
  throw new Error('expected a PostgrestError');
}

describe('filters', () => {
  it('reads operators with not., modifiers, languages and quoted in-lists', () => {
    expect(parseFilterValue('not.ilike.*bio*')).toEqual({
      negate: true,
      operation: { kind: 'quantified', operator: 'ilike', quantifier: undefined, value: '*bio*' },
    });
    expect(parseFilterValue('in.(a,"b,c","d\\"e")')).toEqual({
      negate: false,
      operation: { kind: 'in', values: ['a', 'b,c', 'd"e'] },
    });
    expect(parseFilterValue('is.TRUE')).toEqual({ negate: false, operation: { kind: 'is', value: 'true' } });
    expect(parseFilterValue('like(any).{O*,P*}').operation).toEqual({
      kind: 'quantified',
      operator: 'like',
      quantifier: 'any',
      value: '{O*,P*}',
    });
    expect(parseFilterValue('not.phfts(english).The Fat Cats').operation).toEqual({
      kind: 'fts',
      operator: 'phfts',
      language: 'english',
      value: 'The Fat Cats',
    });
    expect(parseFilterValue('isdistinct.5').operation).toEqual({ kind: 'isdistinct', value: '5' });
    for (const operator of ['cs', 'cd', 'ov', 'sl', 'sr', 'nxl', 'nxr', 'adj', 'neq']) {
      expect(parseFilterValue(`${operator}.x`).operation).toEqual({ kind: 'simple', operator, value: 'x' });
    }
  });

  it('refuses unknown operators and bad is. values with PGRST100 and where it failed', () => {
    const unknown = refusedWith(() => parseFilterValue('noop.0'));
    expect(unknown.body()).toEqual({
      code: 'PGRST100',
      message: '"failed to parse filter (noop.0)" (line 1, column 1)',
      details: 'unexpected "n" expecting "not" or operator (eq, gt, ...)',
      hint: null,
    });
    for (const value of ['eq', 'is.maybe', 'in.a,b', 'fts().x'])
      expect(() => parseFilterValue(value)).toThrow(PostgrestError);
  });
});

describe('logic trees', () => {
  it('reads nested trees with not. at any level and embed paths', () => {
    const { path, tree } = parseLogic(
      'actors.not.or',
      '(first_name.eq.a,and(age.is.null,not.or(id.gt.1,last_name.like.x*)))',
    );
    expect(path).toEqual(['actors']);
    expect(tree).toMatchObject({
      kind: 'logic',
      negate: true,
      operator: 'or',
      children: [
        { kind: 'filter' },
        {
          kind: 'logic',
          operator: 'and',
          children: [{ kind: 'filter' }, { kind: 'logic', negate: true, operator: 'or' }],
        },
      ],
    });
  });

  it(`accepts ${MAX_NESTING_DEPTH} levels and refuses one more with PGRST100`, () => {
    const nest = (levels: number) => `${'or('.repeat(levels - 1)}id.eq.1${')'.repeat(levels - 1)}`;
    expect(() => parseLogic('or', `(${nest(MAX_NESTING_DEPTH)})`)).not.toThrow();
    const refused = refusedWith(() => parseLogic('or', `(${nest(MAX_NESTING_DEPTH + 1)})`));
    expect(refused.code).toBe('PGRST100');
    expect(refused.details).toMatch(/more than 64 nested levels/);
  });

  it('refuses 2,500 levels quickly, without exhausting the stack', () => {
    const deep = `(${'or('.repeat(2500)}id.eq.1${')'.repeat(2500)})`;
    expect(refusedWith(() => parseLogic('or', deep)).status).toBe(400);
  });
});

describe('select, order', () => {
  it('reads fields, aliases, casts, JSON paths, embeds with hints, join types and spreads', () => {
    expect(parseSelect('id::text,n:data->a->>b,dir:directors!director_id!inner(*),...roles(character)')).toEqual([
      {
        kind: 'field',
        field: { name: 'id', jsonPath: [] },
        cast: 'text',
        alias: undefined,
        aggregate: undefined,
        aggregateCast: undefined,
      },
      {
        kind: 'field',
        field: {
          name: 'data',
          jsonPath: [
            { arrow: '->', operand: { kind: 'key', value: 'a' } },
            { arrow: '->>', operand: { kind: 'key', value: 'b' } },
          ],
        },
        cast: undefined,
        alias: 'n',
        aggregate: undefined,
        aggregateCast: undefined,
      },
      {
        kind: 'relation',
        name: 'directors',
        alias: 'dir',
        hint: 'director_id',
        joinType: 'inner',
        children: [
          {
            kind: 'field',
            field: { name: '*', jsonPath: [] },
            cast: undefined,
            alias: undefined,
            aggregate: undefined,
            aggregateCast: undefined,
          },
        ],
      },
      {
        kind: 'spread',
        name: 'roles',
        alias: undefined,
        hint: undefined,
        joinType: undefined,
        children: [
          {
            kind: 'field',
            field: { name: 'character', jsonPath: [] },
            cast: undefined,
            alias: undefined,
            aggregate: undefined,
            aggregateCast: undefined,
          },
        ],
      },
    ]);
  });

  it('refuses a cast that is not a type name', () => {
    for (const select of ['id::text)', 'id::"x"', 'id::text;drop', 'id,(select 1)'])
      expect(() => parseSelect(select)).toThrow(PostgrestError);
  });

  it('refuses a cast word PostgreSQL would read as a dollar quote, a parameter or a number', () => {
    const refused = refusedWith(() => parseSelect('id::text $a$,name'));
    expect(refused.body()).toEqual({
      code: 'PGRST100',
      details: 'unexpected "$" expecting letter',
      hint: null,
      message: '"failed to parse select parameter (id::text $a$,name)" (line 1, column 10)',
    });
    for (const select of ['id::$a$', 'id::text $1', 'id::int 4', 'id::varchar 10', 'id::text, name::int $$']) {
      expect(refusedWith(() => parseSelect(select)).code).toBe('PGRST100');
    }
  });

  it('takes casts of several words and words holding $ or digits after their first letter', () => {
    const casts = (select: string) =>
      parseSelect(select).map((item) => (item.kind === 'field' ? item.cast : undefined));
    expect(casts('a::double precision,b::timestamp with time zone,c::int4,d::my$type,e::_text,f::ñame')).toEqual([
      'double precision',
      'timestamp with time zone',
      'int4',
      'my$type',
      '_text',
      'ñame',
    ]);
  });

  it('bounds embedding depth', () => {
    const deep = `${'a('.repeat(MAX_NESTING_DEPTH + 1)}id${')'.repeat(MAX_NESTING_DEPTH + 1)}`;
    expect(refusedWith(() => parseSelect(deep)).code).toBe('PGRST100');
  });

  it('reads order terms, on JSON paths and on to-one embeds', () => {
    expect(parseOrder('title.desc.nullslast,id,data->>a.asc,clients(name).desc')).toEqual([
      { kind: 'field', field: { name: 'title', jsonPath: [] }, direction: 'desc', nulls: 'nullslast' },
      { kind: 'field', field: { name: 'id', jsonPath: [] }, direction: undefined, nulls: undefined },
      {
        kind: 'field',
        field: { name: 'data', jsonPath: [{ arrow: '->>', operand: { kind: 'key', value: 'a' } }] },
        direction: 'asc',
        nulls: undefined,
      },
      {
        kind: 'relation',
        relation: 'clients',
        field: { name: 'name', jsonPath: [] },
        direction: 'desc',
        nulls: undefined,
      },
    ]);
    expect(refusedWith(() => parseOrder('title.sideways')).details).toContain(
      'expecting "asc", "desc", "nullsfirst" or "nullslast"',
    );
  });
});

describe('sql', () => {
  const snapshot: CatalogSnapshot = {
    schemas: ['public'],
    tables: new Map(),
    functions: new Map(),
    relationships: new Map(),
    computedFields: new Map(),
  };

  it('quotes names and binds every value, building the filter once', () => {
    const params = parseQueryParams(
      new URLSearchParams(
        'select=title&title=eq.x%27;drop&or=(done.is.true,task_day.in.(1,2))&order=title.desc&limit=5',
      ),
    );
    const plan = buildReadPlan({
      snapshot,
      schema: 'public',
      relation: { schema: 'public', name: 'user_tasks' },
      params,
      action: 'read',
      topRange: params.ranges.get('') ?? { offset: 0, limit: undefined },
      maxRows: undefined,
      aggregates: false,
    });
    const bind = new Params();
    const sql = readStatement(
      { params: bind, column: () => undefined },
      plan,
      { kind: 'json', stripNulls: false },
      undefined,
    );
    expect(sql).toContain('"public"."user_tasks"."title" = $');
    expect(sql).toContain('("public"."user_tasks"."done" IS TRUE OR "public"."user_tasks"."task_day" = ANY ($');
    expect(sql).toContain('ORDER BY "public"."user_tasks"."title" DESC LIMIT $');
    expect(sql).not.toContain('drop');
    expect(bind.values).toEqual(expect.arrayContaining(["x';drop", '{"1","2"}', '5']));
  });
});

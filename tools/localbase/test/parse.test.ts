// The PostgREST URL grammar and the SQL built from it: names only from the catalog, values only as
// parameters.
import { describe, expect, it } from 'vitest';
import type { Table } from '../src/rest/catalog.ts';
import { PostgrestError } from '../src/rest/errors.ts';
import { parseFilter, parseLogic, parseOrder, parseReadQuery, parseSelect } from '../src/rest/parse.ts';
import { Params, qualifiedTable, readSql, tableScope } from '../src/rest/sql.ts';

const tasks: Table = {
  name: 'user_tasks',
  primaryKey: ['id'],
  columns: new Map(
    ['id', 'title', 'done', 'task_day'].map((name) => [name, { name, type: 'text', udtName: 'text', generated: false }]),
  ),
};

describe('parse', () => {
  it('reads operators with not. and quoted in-lists', () => {
    expect(parseFilter('title', 'not.ilike.*bio*')).toEqual({ kind: 'filter', column: 'title', operator: 'ilike', negate: true, value: '*bio*' });
    expect(parseFilter('title', 'in.(a,"b,c","d\\"e")').value).toEqual(['a', 'b,c', 'd"e']);
    expect(parseFilter('done', 'is.true').value).toBe('true');
  });

  it('refuses unknown operators and bad is. values with PGRST100', () => {
    for (const [column, expression] of [['title', 'regex.x'], ['title', 'eq'], ['done', 'is.maybe'], ['title', 'in.a,b']]) {
      expect(() => parseFilter(column as string, expression as string)).toThrow(PostgrestError);
    }
  });

  it('reads nested logic trees', () => {
    const tree = parseLogic('or', '(title.eq.a,and(done.is.true,not.or(task_day.is.null,title.like.x*)))');
    expect(tree.join).toBe('or');
    expect(tree.children[1]).toMatchObject({ kind: 'logic', join: 'and', children: [{ operator: 'is' }, { kind: 'logic', join: 'or', negate: true }] });
  });

  it('reads select lists with aliases and refuses embedding and casts', () => {
    expect(parseSelect('id,name:title')).toEqual([{ column: 'id', alias: 'id' }, { column: 'title', alias: 'name' }]);
    expect(parseSelect('*')).toBeUndefined();
    for (const select of ['id,groups(name)', 'id::text', 'payload->a']) expect(() => parseSelect(select)).toThrow(PostgrestError);
  });

  it('reads order terms', () => {
    expect(parseOrder('title.desc.nullslast,id')).toEqual([
      { column: 'title', descending: true, nulls: 'last' },
      { column: 'id', descending: false, nulls: undefined },
    ]);
    expect(() => parseOrder('title.sideways')).toThrow(PostgrestError);
  });
});

describe('sql', () => {
  it('quotes catalog names and binds every value', () => {
    const query = parseReadQuery(new URLSearchParams('select=title&title=eq.x%27;drop&or=(done.is.true,task_day.in.(1,2))&order=title.desc&limit=5'));
    const params = new Params();
    const sql = readSql(qualifiedTable(tasks), query, tableScope(tasks), params, true);
    expect(sql).toContain('"title" = $1');
    expect(sql).toContain('("done" is true or "task_day" = any($2))');
    expect(sql).toContain('order by "title" desc limit $3');
    expect(sql).not.toContain('drop');
    // The filter is built once and used for both the count and the rows.
    expect(params.values).toEqual(["x';drop", ['1', '2'], 5]);
  });

  it('refuses a column the catalog does not know, before any SQL exists', () => {
    const query = parseReadQuery(new URLSearchParams('secret=eq.1'));
    expect(() => readSql(qualifiedTable(tasks), query, tableScope(tasks), new Params(), false)).toThrow(/secret/);
  });
});

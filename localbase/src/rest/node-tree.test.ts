// The pg_node_tree reader on the text Postgres writes: nodes, lists, `<>`, protected words, and the
// target list of a view's rule. The rules of real views are read on both engines in
// rest-view-embedding.parity.test.ts; these are the corners that text can hold.
import { describe, expect, it } from 'vitest';
import { parseNodeTree, viewColumnSources } from './node-tree.ts';

describe('parseNodeTree', () => {
  it('reads nodes with fields, lists, nothing and words', () => {
    const tree = parseNodeTree('({QUERY :commandType 1 :utilityStmt <> :cols (i 1 2) :constvalue 4 [ 1 0 0 0 ]})');
    expect(tree).toEqual([
      {
        node: 'QUERY',
        fields: new Map([
          ['commandType', ['1']],
          ['utilityStmt', [null]],
          ['cols', [['i', '1', '2']]],
          ['constvalue', ['4', '[', '1', '0', '0', '0', ']']],
        ]),
      },
    ]);
  });

  it('keeps protected spaces, braces, parentheses and backslashes inside one word', () => {
    const tree = parseNodeTree(String.raw`{ALIAS :aliasname \{director\}\ \(id\)\\ :colnames <>}`);
    expect(tree).toEqual({
      node: 'ALIAS',
      fields: new Map([
        ['aliasname', ['{director} (id)\\']],
        ['colnames', [null]],
      ]),
    });
  });

  it('reads a protected <> and a protected digit as words, not as nothing or a number', () => {
    const tree = parseNodeTree(String.raw`{ALIAS :a \<> :b \1st}`);
    expect(tree).toEqual({
      node: 'ALIAS',
      fields: new Map([
        ['a', ['<>']],
        ['b', ['1st']],
      ]),
    });
  });

  it('takes the word after a field name as its value even when it starts with a colon', () => {
    const tree = parseNodeTree('{TARGETENTRY :resno 1 :resname :resorigtbl :resorigtbl 16390}');
    expect(tree).toEqual({
      node: 'TARGETENTRY',
      fields: new Map([
        ['resno', ['1']],
        ['resname', [':resorigtbl']],
        ['resorigtbl', ['16390']],
      ]),
    });
  });

  it('refuses text that is not one whole value', () => {
    expect(() => parseNodeTree('{QUERY :a 1')).toThrow(/not closed|ends early/);
    expect(() => parseNodeTree('{QUERY :a 1} {QUERY}')).toThrow(/after the value/);
    expect(() => parseNodeTree(')')).toThrow(/unexpected/);
  });
});

describe('viewColumnSources', () => {
  const entry = (resno: number, table: number, column: number, junk = false) =>
    `{TARGETENTRY :expr {VAR :varno 1} :resno ${resno} :resname x :ressortgroupref 0 :resorigtbl ${table} :resorigcol ${column} :resjunk ${junk}}`;

  it("reads the view's own target list: traced columns only, junk entries left out", () => {
    const rule = `({QUERY :commandType 1 :rtable ({RANGETBLENTRY :subquery {QUERY :targetList (${entry(1, 99, 9)})}}) :targetList (${entry(1, 16390, 1)} ${entry(2, 0, 0)} ${entry(3, 16390, 2, true)} ${entry(4, 16400, 3)})})`;
    expect(viewColumnSources(rule)).toEqual([
      { viewColumn: 1, table: 16390, tableColumn: 1 },
      { viewColumn: 4, table: 16400, tableColumn: 3 },
    ]);
  });

  it('finds nothing in a rule that is not a query with a target list', () => {
    expect(viewColumnSources('({QUERY :commandType 1 :targetList <>})')).toEqual([]);
    expect(viewColumnSources('<>')).toEqual([]);
  });
});

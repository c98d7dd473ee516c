// A reader for PostgreSQL's `pg_node_tree` text (a view's rewrite rule, `pg_rewrite.ev_action`),
// enough to learn which table column each column of a view shows. The format is the one
// outfuncs.c writes and read.c reads: `{NODE :field value ...}` for a node, `(...)` for a list,
// `<>` for nothing, and every other token a word that a backslash protects where it would read as
// punctuation (a space, a brace, a parenthesis or a backslash anywhere; a digit, `<`, `"` or a sign
// at its start).
//
// Postgres reads a node's fields by position, knowing each node's layout. This reader does not: it
// takes a token that starts with an unescaped `:` as a field name, and the values up to the next
// one as that field's value. Every field is written with at least one value token, and a name
// given by the view's author (a column alias) is always one token, which outToken does not protect
// when it starts with `:`: so the first token after a field name is always read as its value,
// whatever it looks like, and an alias such as `:resorigtbl` stays the name it is.

export type TreeValue = TreeNode | TreeValue[] | string | null;

export interface TreeNode {
  node: string;
  fields: Map<string, TreeValue[]>;
}

interface Token {
  text: string;
  /** Read with a backslash somewhere in it: a word, never punctuation, a field name or `<>`. */
  escaped: boolean;
}

// Whitespace, then one token: a punctuation mark, or a word (with its backslash-protected
// characters). A sticky expression walks the text without copying it character by character.
const TOKEN = /[ \n\t\r]*(?:([(){}])|((?:\\[\s\S]|[^ \n\t\r(){}\\])+))/y;
const ESCAPE = /\\([\s\S])/g;

class Reader {
  private at = 0;
  private peeked: Token | undefined;

  constructor(private readonly text: string) {}

  peek(): Token | undefined {
    if (this.peeked !== undefined) return this.peeked;
    TOKEN.lastIndex = this.at;
    const match = TOKEN.exec(this.text);
    if (!match) {
      // Only whitespace (or nothing) is left; anything else cannot be a token.
      if (this.text.slice(this.at).trim() !== '') throw new Error('pg_node_tree: unreadable text');
      return undefined;
    }
    this.at = TOKEN.lastIndex;
    const [, punctuation, word = ''] = match;
    this.peeked =
      punctuation !== undefined
        ? { text: punctuation, escaped: false }
        : word.includes('\\')
          ? { text: word.replace(ESCAPE, '$1'), escaped: true }
          : { text: word, escaped: false };
    return this.peeked;
  }

  take(): Token {
    const token = this.peek();
    if (token === undefined) throw new Error('pg_node_tree ends early');
    this.peeked = undefined;
    return token;
  }
}

const isPunctuation = (token: Token, char: string) => !token.escaped && token.text === char;
const isFieldName = (token: Token) => !token.escaped && token.text.length > 1 && token.text.startsWith(':');

function readValue(reader: Reader): TreeValue {
  const token = reader.take();
  if (isPunctuation(token, '{')) return readNode(reader);
  if (isPunctuation(token, '(')) {
    const items: TreeValue[] = [];
    while (!isPunctuation(reader.peek() ?? { text: ')', escaped: false }, ')')) items.push(readValue(reader));
    reader.take();
    return items;
  }
  if (isPunctuation(token, ')') || isPunctuation(token, '}'))
    throw new Error(`pg_node_tree: unexpected "${token.text}"`);
  if (!token.escaped && token.text === '<>') return null;
  return token.text;
}

function readNode(reader: Reader): TreeNode {
  const name = reader.take();
  const node: TreeNode = { node: name.text, fields: new Map() };
  let field: TreeValue[] | undefined;
  for (;;) {
    const next = reader.peek();
    if (next === undefined) throw new Error('pg_node_tree: a node is not closed');
    if (isPunctuation(next, '}')) {
      reader.take();
      return node;
    }
    if (isFieldName(next)) {
      reader.take();
      field = [readValue(reader)];
      node.fields.set(next.text.slice(1), field);
      continue;
    }
    const value = readValue(reader);
    // A value before any field name (a node written without fields) is kept under the empty name.
    if (field === undefined) {
      field = [];
      node.fields.set('', field);
    }
    field.push(value);
  }
}

/** Parses one `pg_node_tree` value (a node or a list of nodes). */
export function parseNodeTree(text: string): TreeValue {
  const reader = new Reader(text);
  const value = readValue(reader);
  if (reader.peek() !== undefined) throw new Error('pg_node_tree: text after the value');
  return value;
}

/** A view's column and the table column it shows unchanged (attribute numbers; the table by oid). */
export interface ViewColumnSource {
  viewColumn: number;
  table: number;
  tableColumn: number;
}

function single(node: TreeNode, field: string): TreeValue | undefined {
  const values = node.fields.get(field);
  return values?.length === 1 ? values[0] : undefined;
}

function isNode(value: TreeValue | undefined, name: string): value is TreeNode {
  return (
    value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value) && value.node === name
  );
}

function integer(value: TreeValue | undefined): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/**
 * What each column of a view shows, from its rewrite rule: the columns of its query's target list
 * that Postgres traced to one table column (`resorigtbl`/`resorigcol`, set for a plain column
 * reference, also through joins and subqueries; not for an expression, an aggregate or a set
 * operation). Only the view's own query counts, not the queries nested in it.
 */
export function viewColumnSources(evAction: string): ViewColumnSource[] {
  const rules = parseNodeTree(evAction);
  const query = Array.isArray(rules) ? rules[0] : rules;
  if (!isNode(query, 'QUERY')) return [];
  const targetList = single(query, 'targetList');
  if (!Array.isArray(targetList)) return [];
  const sources: ViewColumnSource[] = [];
  for (const entry of targetList) {
    if (!isNode(entry, 'TARGETENTRY') || single(entry, 'resjunk') === 'true') continue;
    const viewColumn = integer(single(entry, 'resno'));
    const table = integer(single(entry, 'resorigtbl'));
    const tableColumn = integer(single(entry, 'resorigcol'));
    if (viewColumn === undefined || !table || !tableColumn) continue;
    sources.push({ viewColumn, table, tableColumn });
  }
  return sources;
}

// PostgREST's URL grammar, parsed into plain data: select trees (fields with JSON paths, casts and
// aliases; embedded resources with hints, join types and spreads), filters with every operator,
// `or`/`and` logic trees, order terms, limits and offsets, each possibly aimed at an embedded
// resource (`actors.order=...`). Nothing here touches SQL or the catalog. The grammar follows
// PostgREST's parser (ApiRequest/QueryParams.hs) rule by rule, including what it tolerates; the
// one addition is a bound on nesting, so that no input can make the parser recurse without end.
// The data it produces is typed in query-types.ts, as PostgREST's is in ApiRequest/Types.hs.
import { badRequest, PostgrestError } from './errors.ts';
import {
  FTS_OPERATORS,
  IS_VALUES,
  QUANTIFIABLE_OPERATORS,
  SIMPLE_OPERATORS,
  type AggregateName,
  type EmbedPath,
  type Field,
  type JoinType,
  type JsonStep,
  type LogicTree,
  type Operation,
  type OpExpr,
  type OrderDirection,
  type OrderNulls,
  type OrderTerm,
  type QueryParams,
  type SelectField,
  type SelectItem,
  type SelectRelation,
} from './query-types.ts';

// The operator lists are the grammar's words as much as the types' source: a reader of the grammar
// finds them here too.
export { FTS_OPERATORS, IS_VALUES, QUANTIFIABLE_OPERATORS, SIMPLE_OPERATORS } from './query-types.ts';

/** Deepest `or`/`and` nesting accepted in a logic tree, and deepest embedding in `select`. */
export const MAX_NESTING_DEPTH = 64;

// -------------------------------------------------------------------------------------------------
// A cursor over one parameter value, failing the way Parsec reports: a message naming what failed
// and where, details naming what was found and what was expected.

/**
 * A failed alternative. Not an Error: backtracking throws these often, and capturing a stack
 * trace for each made parsing the bulk of a request's CPU time.
 */
class ParseFailure {
  constructor(
    readonly position: number,
    readonly found: string,
    readonly expected: string[],
  ) {}
}

class Cursor {
  position = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.position >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text[this.position + offset] ?? '';
  }

  startsWith(word: string): boolean {
    return this.text.startsWith(word, this.position);
  }

  rest(): string {
    return this.text.slice(this.position);
  }

  fail(...expected: string[]): never {
    const found = this.done ? 'end of input' : JSON.stringify(this.peek());
    throw new ParseFailure(this.position, found, expected);
  }

  expect(word: string, label = JSON.stringify(word)): void {
    if (!this.startsWith(word)) this.fail(label);
    this.position += word.length;
  }

  /** Consumes `word` when the text continues with it. */
  accept(word: string): boolean {
    if (!this.startsWith(word)) return false;
    this.position += word.length;
    return true;
  }

  /** Runs `parse`; on failure rewinds and answers undefined (Parsec's `try`). */
  attempt<T>(parse: () => T): T | undefined {
    const start = this.position;
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ParseFailure)) throw error;
      this.position = start;
      return undefined;
    }
  }

  skipBlanks(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.position++;
  }
}

/**
 * Runs `parse` over `text` and turns a failure into PostgREST's PGRST100 body. `prefix` is parsed
 * before the text without being shown (the logic tree operator), so columns count from the text.
 */
function runParser<T>(what: string, text: string, parse: (cursor: Cursor) => T, prefix = ''): T {
  const cursor = new Cursor(prefix + text);
  const column = (position: number) => Math.max(1, position - prefix.length + 1);
  try {
    return parse(cursor);
  } catch (error) {
    if (error instanceof DepthExceeded) {
      throw badRequest(
        `"${what} (${text})" (line 1, column ${column(error.position)})`,
        `more than ${MAX_NESTING_DEPTH} nested levels; deeper nesting is not accepted`,
      );
    }
    if (!(error instanceof ParseFailure)) throw error;
    const expected = error.expected.length > 0 ? ` expecting ${joinAlternatives(error.expected)}` : '';
    throw badRequest(
      `"${what} (${text})" (line 1, column ${column(error.position)})`,
      `unexpected ${error.found}${expected}`,
    );
  }
}

function joinAlternatives(items: string[]): string {
  const unique = [...new Set(items)];
  if (unique.length <= 1) return unique.join('');
  return `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`;
}

class DepthExceeded {
  constructor(readonly position: number) {}
}

// -------------------------------------------------------------------------------------------------
// Names and JSON paths

/** Letters and digits of any script, `_`, `$` and blanks; ASCII is decided without a regex (hot path). */
function isIdentifierChar(char: string): boolean {
  const code = char.charCodeAt(0);
  if (code < 128)
    return (
      (code >= 97 && code <= 122) ||
      (code >= 65 && code <= 90) ||
      (code >= 48 && code <= 57) ||
      code === 95 ||
      code === 36 ||
      code === 32
    );
  return /^[\p{L}\p{N}]$/u.test(char);
}

function quotedValue(cursor: Cursor): string {
  cursor.expect('"');
  let value = '';
  for (;;) {
    if (cursor.done) cursor.fail('"\\""');
    const char = cursor.peek();
    if (char === '"') break;
    if (char === '\\') {
      cursor.position++;
      if (cursor.done) cursor.fail('any character');
    }
    value += cursor.peek();
    cursor.position++;
  }
  cursor.position++;
  return value;
}

function identifier(cursor: Cursor, allowed: (char: string) => boolean = isIdentifierChar): string {
  const start = cursor.position;
  while (!cursor.done && allowed(cursor.peek())) cursor.position++;
  if (cursor.position === start) cursor.fail('field name (* or [a..z0..9_$])');
  return cursor.text.slice(start, cursor.position).trim();
}

/** Identifiers joined by dashes that do not start an arrow (`a-b` is a name, `a->b` a path). */
function dashSeparated(cursor: Cursor, part: (cursor: Cursor) => string): string {
  const parts = [part(cursor)];
  while (cursor.peek() === '-' && cursor.peek(1) !== '>') {
    cursor.position++;
    parts.push(part(cursor));
  }
  return parts.join('-');
}

function fieldName(cursor: Cursor): string {
  if (cursor.peek() === '"') return quotedValue(cursor);
  return dashSeparated(cursor, (c) => identifier(c));
}

const isJsonKeyChar = (char: string) => !'(-:.,>)'.includes(char);

function jsonPath(cursor: Cursor): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    let arrow: JsonStep['arrow'];
    if (cursor.startsWith('->>')) arrow = '->>';
    else if (cursor.startsWith('->')) arrow = '->';
    else return steps;
    cursor.position += arrow.length;
    const index = cursor.attempt(() => {
      const start = cursor.position;
      if (cursor.peek() === '-') cursor.position++;
      const digitsStart = cursor.position;
      while (/\d/.test(cursor.peek())) cursor.position++;
      if (cursor.position === digitsStart) cursor.fail('digit');
      const atEnd = cursor.done || ['->', '::', '.', ','].some((end) => cursor.startsWith(end));
      if (!atEnd) cursor.fail('"->"', '"::"', '"."', '","', 'end of input');
      const raw = cursor.text.slice(start, cursor.position);
      return raw.startsWith('-') ? raw : `+${raw}`;
    });
    if (index !== undefined) {
      steps.push({ arrow, operand: { kind: 'index', value: index } });
      continue;
    }
    const key =
      cursor.peek() === '"' ? quotedValue(cursor) : dashSeparated(cursor, (c) => identifier(c, isJsonKeyChar));
    steps.push({ arrow, operand: { kind: 'key', value: key } });
  }
}

function field(cursor: Cursor): Field {
  cursor.skipBlanks();
  const name = fieldName(cursor);
  const path = jsonPath(cursor);
  cursor.skipBlanks();
  return { name, jsonPath: path };
}

/**
 * A cast or aggregate cast: the characters of a PostgreSQL type name, nothing that could close it.
 * The cast is written into the statement as it is, so each of its words must also be a word of a
 * type name (`double precision`, `timestamp with time zone`): one starting with `$` or a digit
 * would be read by PostgreSQL as a dollar quote, a parameter or a number, and a dollar quote
 * swallows the rest of the statement into its error message. PostgREST's grammar takes such a
 * word and leaves it to PostgreSQL; here it is refused where it stands, before any SQL is built.
 */
function typeName(cursor: Cursor): string {
  const start = cursor.position;
  while (!cursor.done && isIdentifierChar(cursor.peek())) cursor.position++;
  if (cursor.position === start) cursor.fail('letter or digit');
  const end = cursor.position;
  for (let index = start; index < end; index++) {
    const wordStart = cursor.text[index] !== ' ' && (index === start || cursor.text[index - 1] === ' ');
    if (wordStart && !startsTypeWord(cursor.text[index] as string)) {
      cursor.position = index;
      cursor.fail('letter');
    }
  }
  return cursor.text.slice(start, end).trim();
}

/** The first character of an unquoted PostgreSQL identifier: a letter of any script or `_`. */
function startsTypeWord(char: string): boolean {
  return char === '_' || /^\p{L}$/u.test(char);
}

// -------------------------------------------------------------------------------------------------
// select

function atItemEnd(cursor: Cursor): boolean {
  return cursor.done || cursor.peek() === ')' || cursor.peek() === ',';
}

// Lookaheads that rule out an alternative before trying it. Each answers true whenever the
// alternative could succeed, so skipping on false changes no result; they exist because most select
// items are plain columns, and trying (and failing) the alias and embed alternatives on each one
// made parsing a large share of a request's CPU time.

/** Whether an unquoted name ends in `:` (an alias), or the item starts with a quoted name. */
function mayHaveAlias(cursor: Cursor): boolean {
  const { text } = cursor;
  let index = cursor.position;
  if (text[index] === '"') return true;
  while (
    index < text.length &&
    (isIdentifierChar(text[index] as string) || (text[index] === '-' && text[index + 1] !== '>'))
  )
    index++;
  return text[index] === ':' && text[index + 1] !== ':';
}

/** Whether a `(` comes before the item ends (`,`, `)` or the end), or a quoted name might hide one. */
function mayBeRelation(cursor: Cursor): boolean {
  const { text } = cursor;
  for (let index = cursor.position; index < text.length; index++) {
    const char = text[index];
    if (char === '(' || char === '"') return true;
    if (char === ',' || char === ')') return false;
  }
  return false;
}

function aliasPrefix(cursor: Cursor): string | undefined {
  if (!mayHaveAlias(cursor)) return undefined;
  return cursor.attempt(() => {
    const name = fieldName(cursor);
    if (cursor.peek() !== ':' || cursor.peek(1) === ':') cursor.fail('":"');
    cursor.position++;
    return name;
  });
}

function embedParameters(cursor: Cursor): { hint: string | undefined; joinType: JoinType | undefined } {
  let hint: string | undefined;
  let joinType: JoinType | undefined;
  for (let i = 0; i < 2 && cursor.peek() === '!'; i++) {
    cursor.position++;
    if (cursor.startsWith('left')) {
      cursor.position += 4;
      joinType ??= 'left';
    } else if (cursor.startsWith('inner')) {
      cursor.position += 5;
      joinType ??= 'inner';
    } else {
      hint ??= fieldName(cursor);
    }
  }
  return { hint, joinType };
}

function relationItem(cursor: Cursor, depth: number): SelectRelation {
  cursor.skipBlanks();
  const spread = cursor.startsWith('...');
  let alias: string | undefined;
  if (spread) cursor.position += 3;
  else alias = aliasPrefix(cursor);
  const name = fieldName(cursor);
  if (!spread && name === 'count') cursor.fail('relation');
  const { hint, joinType } = embedParameters(cursor);
  if (cursor.peek() !== '(') cursor.fail('"("');
  cursor.position++;
  if (depth >= MAX_NESTING_DEPTH) throw new DepthExceeded(cursor.position);
  const children = selectForest(cursor, depth + 1);
  cursor.expect(')');
  cursor.skipBlanks();
  return { kind: spread ? 'spread' : 'relation', name, alias, hint, joinType, children };
}

const AGGREGATES: AggregateName[] = ['sum', 'avg', 'count', 'max', 'min'];

function fieldItem(cursor: Cursor): SelectField {
  cursor.skipBlanks();
  const star =
    cursor.peek() === '*' &&
    cursor.attempt(() => {
      cursor.expect('*');
      cursor.skipBlanks();
      if (!atItemEnd(cursor)) cursor.fail('")"', '","', 'end of input');
      return true;
    });
  if (star)
    return {
      kind: 'field',
      field: { name: '*', jsonPath: [] },
      cast: undefined,
      alias: undefined,
      aggregate: undefined,
      aggregateCast: undefined,
    };
  const countAll =
    cursor.text.includes('count()', cursor.position) &&
    cursor.attempt(() => {
      const alias = aliasPrefix(cursor);
      cursor.expect('count()');
      const aggregateCast = cursor.startsWith('::') ? ((cursor.position += 2), typeName(cursor)) : undefined;
      cursor.skipBlanks();
      if (!atItemEnd(cursor)) cursor.fail('")"', '","', 'end of input');
      return { alias, aggregateCast };
    });
  if (countAll) {
    return {
      kind: 'field',
      field: { name: '*', jsonPath: [] },
      cast: undefined,
      alias: countAll.alias,
      aggregate: 'count',
      aggregateCast: countAll.aggregateCast,
    };
  }
  const alias = aliasPrefix(cursor);
  const selected = field(cursor);
  let cast: string | undefined;
  if (cursor.startsWith('::')) {
    cursor.position += 2;
    cast = typeName(cursor);
  }
  const aggregate =
    cursor.peek() !== '.'
      ? undefined
      : cursor.attempt(() => {
          cursor.expect('.');
          const name = AGGREGATES.find((candidate) => cursor.startsWith(`${candidate}()`));
          if (!name) cursor.fail('aggregate');
          cursor.position += name.length + 2;
          return name;
        });
  let aggregateCast: string | undefined;
  if (cursor.startsWith('::')) {
    cursor.position += 2;
    aggregateCast = typeName(cursor);
  }
  cursor.skipBlanks();
  if (!atItemEnd(cursor))
    cursor.fail('letter', 'digit', '"-"', '"->>"', '"->"', '"::"', '"."', '")"', '","', 'end of input');
  return { kind: 'field', field: selected, cast, alias, aggregate, aggregateCast };
}

function selectForest(cursor: Cursor, depth: number): SelectItem[] {
  const items: SelectItem[] = [];
  cursor.skipBlanks();
  if (cursor.done || cursor.peek() === ')') return items;
  for (;;) {
    const relation = mayBeRelation(cursor) ? cursor.attempt(() => relationItem(cursor, depth)) : undefined;
    items.push(relation ?? fieldItem(cursor));
    cursor.skipBlanks();
    if (cursor.peek() !== ',') return items;
    cursor.position++;
    cursor.skipBlanks();
  }
}

export function parseSelect(text: string): SelectItem[] {
  return runParser('failed to parse select parameter', text, (cursor) => {
    const items = selectForest(cursor, 0);
    if (!cursor.done) cursor.fail('","', 'end of input');
    return items;
  });
}

// -------------------------------------------------------------------------------------------------
// Filters

function operationValue(cursor: Cursor, single: (cursor: Cursor) => string): Operation {
  const word = (w: string) => cursor.accept(`${w}.`);
  if (word('in')) return { kind: 'in', values: listValue(cursor) };
  if (word('is')) {
    const value = IS_VALUES.find((candidate) => cursor.rest().toLowerCase().startsWith(candidate));
    if (!value) cursor.fail('isVal: (null, not_null, true, false, unknown)');
    cursor.position += value.length;
    return { kind: 'is', value };
  }
  if (word('isdistinct')) return { kind: 'isdistinct', value: single(cursor) };
  const fts = cursor.attempt(() => {
    const operator = FTS_OPERATORS.find((candidate) => cursor.startsWith(candidate));
    if (!operator) cursor.fail('operator (eq, gt, ...)');
    cursor.position += operator.length;
    const language = cursor.attempt(() => {
      cursor.expect('(');
      const name = typeName(cursor);
      cursor.expect(')');
      return name;
    });
    cursor.expect('.', 'delimiter (.)');
    return { kind: 'fts' as const, operator, language, value: single(cursor) };
  });
  if (fts) return fts;
  const simple = cursor.attempt(() => {
    const operator = SIMPLE_OPERATORS.find((candidate) => cursor.startsWith(candidate));
    if (!operator) cursor.fail('operator (eq, gt, ...)');
    cursor.position += operator.length;
    cursor.expect('.', 'delimiter (.)');
    return { kind: 'simple' as const, operator, value: single(cursor) };
  });
  if (simple) return simple;
  const quantified = cursor.attempt(() => {
    const operator = QUANTIFIABLE_OPERATORS.find((candidate) => cursor.startsWith(candidate));
    if (!operator) cursor.fail('operator (eq, gt, ...)');
    cursor.position += operator.length;
    let quantifier: 'any' | 'all' | undefined;
    if (cursor.startsWith('(any)')) quantifier = 'any';
    else if (cursor.startsWith('(all)')) quantifier = 'all';
    if (quantifier) cursor.position += 5;
    cursor.expect('.', 'delimiter (.)');
    return { kind: 'quantified' as const, operator, quantifier, value: single(cursor) };
  });
  if (quantified) return quantified;
  return cursor.fail('"not"', 'operator (eq, gt, ...)');
}

function opExpr(cursor: Cursor, single: (cursor: Cursor) => string): OpExpr {
  const negate = cursor.accept('not.');
  return { negate, operation: operationValue(cursor, single) };
}

const wholeRest = (cursor: Cursor) => {
  const value = cursor.rest();
  cursor.position = cursor.text.length;
  return value;
};

/** `(a,"b,c",d)`: quoted elements may hold commas and parentheses. */
function listValue(cursor: Cursor): string[] {
  cursor.skipBlanks();
  cursor.expect('(');
  cursor.skipBlanks();
  const values: string[] = [];
  for (;;) {
    const quoted = cursor.attempt(() => {
      const value = quotedValue(cursor);
      if (!cursor.done && !',)'.includes(cursor.peek())) cursor.fail('","', '")"');
      return value;
    });
    if (quoted !== undefined) values.push(quoted);
    else {
      const start = cursor.position;
      while (!cursor.done && !',)'.includes(cursor.peek())) cursor.position++;
      values.push(cursor.text.slice(start, cursor.position));
    }
    if (cursor.peek() !== ',') break;
    cursor.position++;
  }
  cursor.skipBlanks();
  cursor.expect(')');
  cursor.skipBlanks();
  return values;
}

/** A key like `actors.roles.character` or `data->a->>b`: an embed path, then a field. */
function treePath(cursor: Cursor): { path: EmbedPath; field: Field } {
  const names = [fieldName(cursor)];
  while (cursor.peek() === '.') {
    cursor.position++;
    names.push(fieldName(cursor));
  }
  const path = jsonPath(cursor);
  if (!cursor.done) cursor.fail('"."', '"->"', 'end of input');
  return { path: names.slice(0, -1), field: { name: names.at(-1) as string, jsonPath: path } };
}

/**
 * PostgREST parses a filter key without requiring the end of it, so `id"; --` would filter on
 * `id`. Here a key that does not parse to its end is taken whole as a column name, which
 * PostgreSQL then reports as unknown (42703) instead of silently filtering on a prefix.
 */
function parseTreePath(key: string): { path: EmbedPath; field: Field } {
  try {
    return runParser('failed to parse tree path', key, treePath);
  } catch (error) {
    if (!(error instanceof PostgrestError)) throw error;
    return { path: [], field: { name: key, jsonPath: [] } };
  }
}

export function parseFilterValue(value: string): OpExpr {
  return runParser('failed to parse filter', value, (cursor) => opExpr(cursor, wholeRest));
}

// -------------------------------------------------------------------------------------------------
// Logic trees

function logicSingleValue(cursor: Cursor): string {
  const quoted = cursor.attempt(() => {
    const value = quotedValue(cursor);
    if (!cursor.done && !',)'.includes(cursor.peek())) cursor.fail('","', '")"');
    return value;
  });
  if (quoted !== undefined) return quoted;
  const array = cursor.attempt(() => {
    const start = cursor.position;
    cursor.expect('{');
    while (!cursor.done && cursor.peek() !== '{' && cursor.peek() !== '}') cursor.position++;
    cursor.expect('}');
    return cursor.text.slice(start, cursor.position);
  });
  if (array !== undefined) return array;
  const start = cursor.position;
  while (!cursor.done && !',)'.includes(cursor.peek())) cursor.position++;
  return cursor.text.slice(start, cursor.position);
}

function logicTree(cursor: Cursor, depth: number): LogicTree {
  const statement = cursor.attempt(() => {
    const target = field(cursor);
    cursor.expect('.', 'delimiter (.)');
    return { kind: 'filter' as const, filter: { field: target, expr: opExpr(cursor, logicSingleValue) } };
  });
  if (statement) return statement;
  const negate = cursor.accept('not.');
  let operator: 'and' | 'or';
  if (cursor.startsWith('and')) operator = 'and';
  else if (cursor.startsWith('or')) operator = 'or';
  else return cursor.fail('logic operator (and, or)');
  cursor.position += operator.length;
  cursor.skipBlanks();
  cursor.expect('(');
  if (depth >= MAX_NESTING_DEPTH) throw new DepthExceeded(cursor.position);
  cursor.skipBlanks();
  const children: LogicTree[] = [];
  for (;;) {
    children.push(logicTree(cursor, depth + 1));
    cursor.skipBlanks();
    if (cursor.peek() !== ',') break;
    cursor.position++;
    cursor.skipBlanks();
  }
  cursor.expect(')');
  cursor.skipBlanks();
  return { kind: 'logic', negate, operator, children };
}

/** `or=(a.eq.1,and(b.gt.2,c.is.null))` on key `or`, `not.and`, `actors.or`, ... */
export function parseLogic(key: string, value: string): { path: EmbedPath; tree: LogicTree } {
  const names = runParser('failed to parse logic path', key, (cursor) => {
    const parts = [fieldName(cursor)];
    while (cursor.peek() === '.') {
      cursor.position++;
      parts.push(fieldName(cursor));
    }
    return parts;
  });
  const operator = names.at(-1) as string;
  const negate = names.slice(0, -1).includes('not');
  const path = names.slice(0, -1).filter((name) => name !== 'not');
  // The operator is parsed in front of the value, as PostgREST does, so the value is one tree.
  const tree = runParser(
    'failed to parse logic tree',
    value,
    (cursor) => logicTree(cursor, 0),
    `${negate ? 'not.' : ''}${operator}`,
  );
  return { path, tree };
}

// -------------------------------------------------------------------------------------------------
// order, columns, on_conflict

function orderTerms(cursor: Cursor): OrderTerm[] {
  const terms: OrderTerm[] = [];
  const suffixes = () => {
    let direction: OrderDirection | undefined;
    let nulls: OrderNulls | undefined;
    for (const candidate of ['asc', 'desc'] as const) {
      if (cursor.startsWith(`.${candidate}`) && !direction) {
        cursor.position += candidate.length + 1;
        direction = candidate;
      }
    }
    for (const candidate of ['nullsfirst', 'nullslast'] as const) {
      if (cursor.startsWith(`.${candidate}`) && !nulls) {
        cursor.position += candidate.length + 1;
        nulls = candidate;
      }
    }
    if (!cursor.done && cursor.peek() !== ',') {
      if (cursor.peek() === '.') {
        cursor.position++;
        cursor.fail(direction || nulls ? '"nullsfirst" or "nullslast"' : '"asc", "desc", "nullsfirst" or "nullslast"');
      }
      cursor.fail('","', 'end of input');
    }
    return { direction, nulls };
  };
  for (;;) {
    cursor.skipBlanks();
    const relation = cursor.attempt(() => {
      const name = fieldName(cursor);
      cursor.expect('(');
      const target = field(cursor);
      cursor.expect(')');
      return { name, target };
    });
    if (relation) {
      terms.push({ kind: 'relation', relation: relation.name, field: relation.target, ...suffixes() });
    } else {
      const target = field(cursor);
      terms.push({ kind: 'field', field: target, ...suffixes() });
    }
    if (cursor.peek() !== ',') break;
    cursor.position++;
  }
  return terms;
}

export function parseOrder(text: string): OrderTerm[] {
  return runParser('failed to parse order', text, (cursor) => {
    const terms = orderTerms(cursor);
    if (!cursor.done) cursor.fail('","', 'end of input');
    return terms;
  });
}

export function parseColumnList(what: string, text: string): string[] {
  return runParser(`failed to parse ${what} parameter`, text, (cursor) => {
    const names: string[] = [];
    for (;;) {
      cursor.skipBlanks();
      names.push(fieldName(cursor));
      cursor.skipBlanks();
      if (cursor.peek() !== ',') break;
      cursor.position++;
    }
    if (!cursor.done) cursor.fail('","', 'end of input');
    return names;
  });
}

// -------------------------------------------------------------------------------------------------
// The whole query string

// `apikey` belongs to the API gateway in front of the Data API (realtime-js and some clients put
// the key in the URL); it is never a filter.
const RESERVED = new Set(['select', 'columns', 'on_conflict', 'apikey']);
const RESERVED_EMBEDDABLE = new Set(['order', 'limit', 'offset', 'and', 'or']);

function lastWord(key: string): string {
  return key.slice(key.lastIndexOf('.') + 1);
}

/** Haskell's readMaybe for an Integer: an optional minus and digits, nothing else. */
function readInteger(value: string): number | undefined {
  return /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

export interface ParseOptions {
  /** A GET or HEAD of an RPC: a parameter whose value is not an operator expression is an argument. */
  rpcRead?: boolean;
}

/**
 * Reads a URL query the way PostgREST does. Keys without a value (`?a`) are ignored; the reserved
 * words are select, columns, on_conflict and, as the last part of a dotted key, order, limit,
 * offset, and, or; every other key is a filter.
 */
export function parseQueryParams(query: URLSearchParams, options: ParseOptions = {}): QueryParams {
  const entries = [...query.entries()];
  const first = (name: string) => entries.find(([key]) => key === name)?.[1];
  const selectText = first('select');
  const result: QueryParams = {
    select: parseSelect(selectText ?? '*'),
    filters: [],
    rpcArguments: [],
    logic: [],
    order: [],
    ranges: new Map(),
    columns: undefined,
    onConflict: undefined,
    filterFields: new Set(),
  };
  const columns = first('columns');
  if (columns !== undefined) result.columns = parseColumnList('columns', columns);
  const onConflict = first('on_conflict');
  if (onConflict !== undefined) result.onConflict = parseColumnList('on_conflict', onConflict);

  const limits = new Map<string, number | undefined>();
  const offsets = new Map<string, number | undefined>();
  for (const [key, value] of entries) {
    if (RESERVED.has(key)) continue;
    const word = lastWord(key);
    if (word === 'order') {
      const { path } = parseTreePath(key);
      result.order.push({ path, terms: parseOrder(value) });
    } else if (word === 'and' || word === 'or') {
      result.logic.push(parseLogic(key, value));
    } else if (word === 'limit') {
      limits.set(key.slice(0, -'limit'.length), readInteger(value));
    } else if (word === 'offset') {
      offsets.set(key.slice(0, -'offset'.length), readInteger(value));
    } else if (!RESERVED_EMBEDDABLE.has(word)) {
      const { path, field: target } = parseTreePath(key);
      result.filterFields.add(key);
      if (options.rpcRead) {
        const expr = tryOperatorExpression(value);
        if (expr) result.filters.push({ path, filter: { field: target, expr } });
        else result.rpcArguments.push([target.name, value]);
      } else {
        result.filters.push({ path, filter: { field: target, expr: parseFilterValue(value) } });
      }
    }
  }
  for (const prefix of new Set([...limits.keys(), ...offsets.keys()])) {
    const path = prefix.endsWith('.') ? prefix.slice(0, -1) : prefix;
    if (path !== '') parseTreePath(`${path}.limit`);
    result.ranges.set(path, { offset: offsets.get(prefix) ?? 0, limit: limits.get(prefix) });
  }
  return result;
}

function tryOperatorExpression(value: string): OpExpr | undefined {
  try {
    return parseFilterValue(value);
  } catch (error) {
    if (error instanceof PostgrestError) return undefined;
    throw error;
  }
}

// Which codes SQL raises: every RAISE statement of a file (function bodies included), read in each
// form PL/pgSQL has, so that a raise this reader cannot turn into a code and a SQLSTATE is reported
// rather than passed over. Comments are skipped and quoted text is never taken for a statement.
//   raise exception 'code' using errcode = 'P0004', hint = '...';   the project's form
//   raise 'code';                                                    level exception, SQLSTATE P0001
//   raise exception using message = 'code', errcode = 'P0004';
//   raise exception sqlstate 'P0004' using message = 'code';
// Levels below exception (notice, warning, ...) raise nothing; a bare `raise;` re-raises what the
// handler caught. A format with parameters, a condition name, or a message or errcode given by an
// expression is reported as unread: the code it raises cannot be known from the text.

export interface SqlRaise {
  code: string;
  sqlstate: string;
  file: string;
  line: number;
}

export interface UnreadRaise {
  file: string;
  line: number;
  statement: string;
  reason: string;
}

export interface SqlRaises {
  raises: SqlRaise[];
  unread: UnreadRaise[];
}

type TokenKind = 'word' | 'string' | 'symbol';

interface Token {
  kind: TokenKind;
  /** A word in lower case, a string's value with its quotes undone, a symbol as written. */
  text: string;
  offset: number;
}

const STABLE_CODE = /^[a-z][a-z0-9_]*$/;
const SQLSTATE = /^[0-9A-Z]{5}$/;
const LEVELS = new Set(['debug', 'log', 'info', 'notice', 'warning', 'exception']);
const DOLLAR_QUOTE = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/;

/**
 * The file as tokens, without comments. Dollar quotes (function bodies) are not strings here: the
 * PL/pgSQL inside them is read as code, which is where the raises are.
 */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < sql.length) {
    const char = sql[at] as string;
    const rest = sql.slice(at, at + 2);
    if (/\s/.test(char)) {
      at += 1;
    } else if (rest === '--') {
      const end = sql.indexOf('\n', at);
      at = end === -1 ? sql.length : end;
    } else if (rest === '/*') {
      at = skipBlockComment(sql, at);
    } else if (char === "'" || ((char === 'E' || char === 'e') && sql[at + 1] === "'")) {
      const escapes = char !== "'";
      const [text, end] = quoted(sql, escapes ? at + 1 : at, escapes);
      tokens.push({ kind: 'string', text, offset: at });
      at = end;
    } else if (char === '"') {
      const [text, end] = quoted(sql, at, false, '"');
      tokens.push({ kind: 'word', text, offset: at });
      at = end;
    } else if (char === '$' && DOLLAR_QUOTE.test(sql.slice(at))) {
      at += (DOLLAR_QUOTE.exec(sql.slice(at)) as RegExpExecArray)[0].length;
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(at))?.[0] as string;
      tokens.push({ kind: 'word', text: word.toLowerCase(), offset: at });
      at += word.length;
    } else {
      const symbol = rest === ':=' || rest === '::' ? rest : char;
      tokens.push({ kind: 'symbol', text: symbol, offset: at });
      at += symbol.length;
    }
  }
  return tokens;
}

/** Block comments nest in PostgreSQL. */
function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let at = start;
  while (at < sql.length) {
    const pair = sql.slice(at, at + 2);
    if (pair === '/*') depth += 1;
    if (pair === '*/') depth -= 1;
    at += pair === '/*' || pair === '*/' ? 2 : 1;
    if (depth === 0) return at;
  }
  return at;
}

/** A quoted string or identifier from its opening quote: its value and the offset after it. */
function quoted(sql: string, start: number, backslashEscapes: boolean, quote = "'"): [string, number] {
  let value = '';
  let at = start + 1;
  while (at < sql.length) {
    const char = sql[at] as string;
    if (backslashEscapes && char === '\\') {
      value += sql[at + 1] ?? '';
      at += 2;
    } else if (char === quote && sql[at + 1] === quote) {
      value += quote;
      at += 2;
    } else if (char === quote) {
      return [value, at + 1];
    } else {
      value += char;
      at += 1;
    }
  }
  return [value, at];
}

/** The tokens of one `using` option's value: up to the next comma or the end, outside parentheses. */
function optionValue(tokens: Token[], start: number): { value: Token[]; next: number } {
  let depth = 0;
  let at = start;
  while (at < tokens.length) {
    const text = (tokens[at] as Token).text;
    if (depth === 0 && (text === ',' || text === ';')) break;
    if (text === '(') depth += 1;
    if (text === ')') depth -= 1;
    at += 1;
  }
  return { value: tokens.slice(start, at), next: at };
}

type Reading = { code: string; sqlstate: string } | { reason: string } | 'nothing';

/** One RAISE statement (its tokens after `raise`, without the `;`). */
function readRaise(tokens: Token[]): Reading {
  let at = 0;
  if (tokens.length === 0) return 'nothing'; // `raise;` re-raises the caught error
  const first = tokens[0] as Token;
  if (first.kind === 'word' && LEVELS.has(first.text)) {
    if (first.text !== 'exception') return 'nothing';
    at = 1;
  }
  let code: string | undefined;
  let sqlstate: string | undefined;
  const head = tokens[at];
  if (head?.kind === 'string') {
    code = head.text;
    at += 1;
    if (tokens[at]?.text === ',') return { reason: 'a format with parameters raises a message made at run time' };
  } else if (head?.kind === 'word' && head.text === 'sqlstate' && tokens[at + 1]?.kind === 'string') {
    sqlstate = (tokens[at + 1] as Token).text;
    at += 2;
  } else if (head?.kind === 'word' && head.text !== 'using') {
    return { reason: `a condition name (${head.text}) names no code of this project` };
  }
  if (at < tokens.length) {
    if (tokens[at]?.text !== 'using') return { reason: 'unexpected text after the message' };
    at += 1;
    while (at < tokens.length) {
      const name = tokens[at];
      const equals = tokens[at + 1];
      if (name?.kind !== 'word' || (equals?.text !== '=' && equals?.text !== ':=')) {
        return { reason: 'a using option that is not `name = value`' };
      }
      const { value, next } = optionValue(tokens, at + 2);
      if (name.text === 'message' || name.text === 'errcode') {
        if (value.length !== 1 || value[0]?.kind !== 'string') {
          return { reason: `the ${name.text} is an expression, not a quoted literal` };
        }
        if (name.text === 'message') code = (value[0] as Token).text;
        else sqlstate = (value[0] as Token).text;
      }
      at = tokens[next]?.text === ',' ? next + 1 : next;
    }
  }
  if (code === undefined) return { reason: 'no message: the code it raises is not written' };
  if (!STABLE_CODE.test(code)) return { reason: `the message "${code}" is not a stable code (lower_snake_case)` };
  sqlstate ??= 'P0001';
  if (!SQLSTATE.test(sqlstate)) return { reason: `the errcode "${sqlstate}" is not a five-character SQLSTATE` };
  return { code, sqlstate };
}

function lineAt(sql: string, offset: number): number {
  let line = 1;
  for (let at = sql.indexOf('\n'); at !== -1 && at < offset; at = sql.indexOf('\n', at + 1)) line += 1;
  return line;
}

/** Every RAISE statement of one SQL file: the codes it raises, and the raises it cannot read. */
export function raisesIn(file: string, sql: string): SqlRaises {
  const tokens = tokenize(sql);
  const found: SqlRaises = { raises: [], unread: [] };
  for (let at = 0; at < tokens.length; at += 1) {
    const token = tokens[at] as Token;
    if (token.kind !== 'word' || token.text !== 'raise') continue;
    let end = at + 1;
    while (end < tokens.length && (tokens[end] as Token).text !== ';') end += 1;
    const line = lineAt(sql, token.offset);
    const reading = readRaise(tokens.slice(at + 1, end));
    if (reading === 'nothing') continue;
    if ('reason' in reading) {
      const statement = sql.slice(token.offset, (tokens[end] as Token | undefined)?.offset ?? sql.length);
      found.unread.push({ file, line, statement: statement.replace(/\s+/g, ' '), reason: reading.reason });
    } else {
      found.raises.push({ ...reading, file, line });
    }
    at = end;
  }
  return found;
}

/** The raises of several files together. */
export function raisesInFiles(files: readonly { name: string; sql: string }[]): SqlRaises {
  const all: SqlRaises = { raises: [], unread: [] };
  for (const file of files) {
    const found = raisesIn(file.name, file.sql);
    all.raises.push(...found.raises);
    all.unread.push(...found.unread);
  }
  return all;
}

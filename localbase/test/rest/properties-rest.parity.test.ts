// Property: whatever query string, body or header the Data API is sent (within the grammar it
// parses today, and garbage outside it), it answers with a success or a PostgREST error, never a
// 5xx, and never hangs; and it keeps answering ordinary requests afterwards. Tables, columns and
// functions come from the catalog, so new ones join without editing this file.
import { fc, test } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { FTS_OPERATORS, QUANTIFIABLE_OPERATORS, SIMPLE_OPERATORS } from '../../src/rest/parse.ts';
import { managementQuery, signedUpClient } from '../clients.ts';
import { call, encodePath, expectApiAnswer, headerText, hostileJsonText, oddText, RUNS, seen } from '../hostile.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let userToken: string;
let userId: string;
let tables: string[] = [];
let columns: string[] = [];
let functions: { name: string; args: string[] }[] = [];

beforeAll(async () => {
  const user = await signedUpClient(localbase, 'prop-rest');
  userId = user.id;
  userToken = (await user.client.auth.getSession()).data.session?.access_token as string;
  const catalog = await managementQuery(
    localbase,
    `select json_build_object(
       'tables', (select json_agg(table_name order by table_name) from information_schema.tables where table_schema = 'public'),
       'columns', (select json_agg(distinct column_name) from information_schema.columns where table_schema = 'public'),
       'functions', (select json_agg(json_build_object('name', p.proname, 'args', coalesce(p.proargnames, '{}')))
                     from pg_proc p where p.pronamespace = 'public'::regnamespace)) as catalog`,
  );
  const { catalog: found } = (
    (await catalog.json()) as {
      catalog: { tables: string[]; columns: string[]; functions: { name: string; args: string[] }[] };
    }[]
  )[0]!;
  tables = found.tables;
  columns = found.columns;
  functions = found.functions;
  expect(tables.length).toBeGreaterThan(5);
});

const OPERATORS = [...SIMPLE_OPERATORS, ...QUANTIFIABLE_OPERATORS, ...FTS_OPERATORS, 'in', 'is', 'isdistinct'];

const pick = <T>(list: () => T[]) => fc.nat().map((index) => list()[index % list().length] as T);
const table = fc.oneof({ weight: 5, arbitrary: pick(() => tables) }, { weight: 1, arbitrary: oddText });
const column = fc.oneof(
  { weight: 5, arbitrary: pick(() => columns) },
  { weight: 1, arbitrary: oddText },
  { weight: 1, arbitrary: fc.constantFrom('*', '"quoted"', 'a.b', 'col->>x', 'x::text') },
);
const operator = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...OPERATORS) },
  { weight: 1, arbitrary: fc.constantFrom('regex', 'fts', 'cs', 'ov', '') },
  { weight: 1, arbitrary: fc.string() },
);
const scalar = fc.oneof(
  oddText,
  fc.integer().map(String),
  fc.constantFrom(
    'null',
    'not_null',
    'true',
    'false',
    'unknown',
    '99999999999999999999999',
    '-1',
    '1.5e400',
    'NaN',
    'infinity',
  ),
  fc.uuid(),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
);
const operand = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 5 }).map((values) => `(${values.join(',')})`) },
);
const filterExpression = fc
  .tuple(fc.boolean(), operator, operand)
  .map(([negate, op, value]) => `${negate ? 'not.' : ''}${op}.${value}`);

const { condition } = fc.letrec<{ condition: string }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(column, filterExpression).map(([name, expression]) => `${name}.${expression}`),
    fc
      .tuple(fc.boolean(), fc.constantFrom('and', 'or'), fc.array(tie('condition'), { minLength: 1, maxLength: 3 }))
      .map(([negate, join, children]) => `${negate ? 'not.' : ''}${join}(${children.join(',')})`),
  ),
}));

const selectList = fc
  .array(
    fc.oneof(
      column,
      fc.tuple(oddText, column).map(([alias, name]) => `${alias}:${name}`),
      fc.constantFrom('*', 'count()', 'other(*)', '...x'),
    ),
    { maxLength: 4 },
  )
  .map((items) => items.join(','));
const orderList = fc
  .array(
    fc.tuple(
      column,
      fc.constantFrom('', '.asc', '.desc', '.wat'),
      fc.constantFrom('', '.nullsfirst', '.nullslast', '.nulls'),
    ),
    { maxLength: 3 },
  )
  .map((terms) => terms.map((parts) => parts.join('')).join(','));
const paging = fc.oneof(fc.nat().map(String), fc.constantFrom('-1', 'abc', '1e9', '99999999999999999999', '', '0x10'));

const queryString = fc
  .record(
    {
      select: selectList,
      order: orderList,
      limit: paging,
      offset: paging,
      filters: fc.array(fc.tuple(column, filterExpression), { maxLength: 3 }),
      logic: fc.array(
        fc.tuple(
          fc.constantFrom('or', 'and', 'not.or', 'not.and'),
          fc.array(condition, { minLength: 1, maxLength: 3 }),
        ),
        { maxLength: 2 },
      ),
      garbage: fc.array(fc.tuple(oddText, oddText), { maxLength: 2 }),
    },
    { requiredKeys: [] },
  )
  .map((parts) => {
    const params = new URLSearchParams();
    for (const key of ['select', 'order', 'limit', 'offset'] as const)
      if (parts[key] !== undefined) params.append(key, parts[key]);
    for (const [name, expression] of parts.filters ?? []) params.append(name, expression);
    for (const [key, children] of parts.logic ?? []) params.append(key, `(${children.join(',')})`);
    for (const [key, value] of parts.garbage ?? []) params.append(key, value);
    return params.toString();
  });

const caller = fc.constantFrom('anon', 'user', 'none', 'garbage');
const prefer = fc.oneof(
  fc.constantFrom(
    '',
    'return=representation',
    'return=minimal',
    'count=exact',
    'resolution=merge-duplicates',
    'resolution=ignore-duplicates,return=representation',
    'tx=rollback',
  ),
  headerText,
);
const accept = fc.oneof(
  fc.constantFrom('', 'application/json', 'application/vnd.pgrst.object+json', 'text/csv', '*/*'),
  headerText,
);

function headersFor(who: string, extra: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (who === 'anon') headers.apikey = localbase.anonKey;
  if (who === 'user') Object.assign(headers, { apikey: localbase.anonKey, authorization: `Bearer ${userToken}` });
  if (who === 'garbage') Object.assign(headers, { apikey: 'not.a.jwt', authorization: 'Bearer x.y.z' });
  for (const [name, value] of Object.entries(extra)) if (value !== '') headers[name] = value;
  return headers;
}

const timeout = 30 * RUNS * 100 + 60_000;

describe('the Data API under arbitrary input', () => {
  test.prop([fc.constantFrom('GET', 'HEAD', 'DELETE'), caller, table, queryString, prefer, accept], {
    numRuns: RUNS * 3,
  })(
    'answers any query string on a table with a success or a PostgREST error, never a 5xx',
    async (method, who, name, query, preferHeader, acceptHeader) => {
      const url = `${localbase.url}/rest/v1/${encodePath(name, false)}?${query}`;
      const answer = await call(url, {
        method,
        headers: headersFor(who, { prefer: preferHeader, accept: acceptHeader }),
      });
      if (method === 'HEAD') {
        expect(answer.status, `HEAD ${url}`).toBeLessThan(500);
        return;
      }
      expectApiAnswer('rest', answer, `${method} ${url}`);
    },
    timeout,
  );

  test.prop(
    [
      fc.constantFrom('POST', 'PATCH'),
      caller,
      table,
      queryString,
      hostileJsonText,
      prefer,
      fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
    ],
    {
      numRuns: RUNS * 2,
    },
  )(
    'answers any body written to a table with a success or a PostgREST error, never a 5xx',
    async (method, who, name, query, body, preferHeader, contentType) => {
      const url = `${localbase.url}/rest/v1/${encodePath(name, false)}?${query}`;
      const answer = await call(url, {
        method,
        body,
        headers: headersFor(who, { prefer: preferHeader, 'content-type': contentType }),
      });
      expectApiAnswer('rest', answer, `${method} ${url} ${body.slice(0, 120)}`);
    },
    timeout,
  );

  test.prop(
    [
      caller,
      fc.nat(),
      fc.dictionary(fc.oneof(fc.constant('p_group_id'), fc.string()), fc.jsonValue({ maxDepth: 3 })),
      fc.boolean(),
      hostileJsonText,
      fc.boolean(),
    ],
    {
      numRuns: RUNS * 2,
    },
  )(
    'answers any call of any function, with named arguments of any value, never a 5xx',
    async (who, index, extra, useKnownNames, rawBody, useRaw) => {
      const fn = functions[index % functions.length]!;
      const args: Record<string, unknown> = {};
      if (useKnownNames)
        for (const [position, name] of fn.args.entries()) args[name] = Object.values(extra)[position] ?? userId;
      Object.assign(args, useKnownNames ? {} : extra);
      const body = useRaw ? rawBody : JSON.stringify(args);
      const answer = await call(`${localbase.url}/rest/v1/rpc/${fn.name}`, {
        method: 'POST',
        body,
        headers: headersFor(who, { 'content-type': 'application/json' }),
      });
      expectApiAnswer('rest', answer, `POST rpc/${fn.name} ${body.slice(0, 160)}`);
      const query = new URLSearchParams(
        Object.entries(args).map(([key, value]) => [
          key,
          typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
        ]),
      );
      const viaGet = await call(`${localbase.url}/rest/v1/rpc/${fn.name}?${query}`, { headers: headersFor(who, {}) });
      expectApiAnswer('rest', viaGet, `GET rpc/${fn.name}?${query.toString().slice(0, 160)}`);
    },
    timeout,
  );

  test.prop([
    fc.array(
      fc.tuple(
        fc.constantFrom('accept-profile', 'content-profile', 'prefer', 'range', 'accept', 'x-client-info'),
        headerText,
      ),
      { maxLength: 4 },
    ),
    table,
  ])(
    'answers odd headers with a success or a PostgREST error',
    async (pairs, name) => {
      const answer = await call(`${localbase.url}/rest/v1/${encodePath(name, false)}`, {
        headers: headersFor('user', Object.fromEntries(pairs)),
      });
      expectApiAnswer('rest', answer, `GET ${name} with ${JSON.stringify(pairs)}`);
    },
    timeout,
  );

  test('reached both successes and refusals (the generators are not all garbage)', () => {
    expect([...seen.rest].some((status) => status < 300)).toBe(true);
    expect([...seen.rest].some((status) => status >= 400)).toBe(true);
  });

  test('still answers ordinary requests after all of it', async () => {
    const answer = await call(`${localbase.url}/rest/v1/users?select=id`, { headers: headersFor('user', {}) });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual([{ id: userId }]);
  });
});

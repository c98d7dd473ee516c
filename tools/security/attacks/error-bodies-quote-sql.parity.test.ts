// A Data API error never shows the SQL localbase built for the request. A cast is the one piece of
// a URL written into the statement unquoted, so a cast word PostgreSQL reads as a dollar quote
// (`id::text $a$`) made its "unterminated dollar-quoted string at or near ..." error carry the
// rest of the statement. Such casts are now refused at the parser (400 PGRST100, as for any
// select PostgREST cannot parse); a syntax error the statement still meets answers its code and
// what went wrong without the quoted text. Errors raised by the app's own functions pass through.
// On PostgreSQL 15 in `npm test`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managementQuery } from '#localbase/test/clients.ts';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

beforeAll(async () => {
  // An app function whose own dynamic SQL is broken: its error is the app's, and stays whole.
  const created = await managementQuery(
    localbase,
    `
    create function public.attack_broken_dynamic_sql() returns int language plpgsql as $$
    begin execute 'select from from'; return 1; end $$;
    grant execute on function public.attack_broken_dynamic_sql() to anon;`,
  );
  if (!created.ok) throw new Error(`creating the function failed: ${await created.text()}`);
});

afterAll(async () => {
  await managementQuery(localbase, 'drop function if exists public.attack_broken_dynamic_sql()');
});

async function get(path: string) {
  const response = await fetch(`${localbase.url}/rest/v1/${path}`, { headers: { apikey: localbase.anonKey } });
  const text = await response.text();
  return {
    status: response.status,
    text,
    body: JSON.parse(text) as { code: string; message: string; details: unknown; hint: unknown },
  };
}

/** Words of the statement localbase builds for a read; none belongs in an answer to these requests. */
const GENERATED_SQL = [
  /"public"\."groups"/,
  /\bFROM\b/,
  /\bSELECT\b/,
  /pgrst_source/,
  /_postgrest_t/,
  /response\.headers/,
  / at or near /,
];

function expectNoGeneratedSql(text: string): void {
  for (const pattern of GENERATED_SQL) expect(text, `answer matches ${pattern}`).not.toMatch(pattern);
}

describe('attack: error bodies quoting the SQL localbase generated', () => {
  it('the reported request: a cast ending in a dollar quote is a parse error, with no SQL in it', async () => {
    const answer = await get('groups?select=id::text%20$a$,name');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 'PGRST100',
      details: 'unexpected "$" expecting letter',
      hint: null,
      message: '"failed to parse select parameter (id::text $a$,name)" (line 1, column 10)',
    });
    expectNoGeneratedSql(answer.text);
  });

  it.each([
    ['two dollar quotes enclosing the statement between two casts', 'id::text%20$a$,name::int%20$a$'],
    ['an empty dollar quote', 'id::text%20$$'],
    ['a parameter', 'id::text%20$1'],
    ['a number', 'id::int%204'],
    ['a dollar quote in an embedded resource', 'id,group_members(user_id::text%20$q$)'],
  ])('%s in a cast: refused at the parser, before any SQL is built', async (_what, select) => {
    const answer = await get(`groups?select=${select}`);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('PGRST100');
    expectNoGeneratedSql(answer.text);
  });

  it.each([
    ['two type words', 'id::text%20text'],
    ['a reserved word', 'id::select'],
    ['a keyword that ends the statement early', 'id::text%20from'],
  ])('%s as a cast reaches PostgreSQL: 42601 without the text it quotes', async (_what, select) => {
    const answer = await get(`groups?select=${select}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: '42601', details: null, hint: null, message: 'syntax error' });
    expectNoGeneratedSql(answer.text);
  });

  it('still answers a cast to a type of several words', async () => {
    const service = { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}` };
    const answer = await fetch(`${localbase.url}/rest/v1/groups?select=id::character%20varying&limit=1`, {
      headers: service,
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toBeInstanceOf(Array);
  });

  it('passes the app\'s own function errors through whole, "at or near" included', async () => {
    const answer = await get('rpc/attack_broken_dynamic_sql');
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('42601');
    expect(answer.body.message).toBe('syntax error at or near "from"');
  });
});

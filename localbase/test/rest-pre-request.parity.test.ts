// The request's cookies as `request.cookies` and PostgREST's db-pre-request: a configured function
// called in every Data API request's transaction, after the role and the request GUCs are set and
// before the statement. What it raises is the request's error (a PTnnn code its status), a write it
// refuses leaves nothing behind, and the response.headers / response.status it sets are answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposedHeaders, requestCookies } from '../src/request-context.ts';
import { preRequestSql } from '../src/rest/pre-request.ts';
import type { Localbase } from '../server.ts';
import { managementQuery } from './clients.ts';
import { rest, startFixtureStack } from './postgrest-fixture.ts';

const SCHEMA = `
create table public.notes (id int primary key, body text);
grant select, insert, delete on public.notes to anon;
create function public.my_cookies() returns json language sql stable
as $$ select current_setting('request.cookies', true)::json $$;
create function public.my_headers() returns json language sql stable
as $$ select current_setting('request.headers', true)::json $$;
create function public.check_request() returns void language plpgsql stable as $$
declare
  headers json := current_setting('request.headers', true)::json;
begin
  if headers ->> 'x-block' is not null then
    raise sqlstate 'PT403' using message = 'blocked by the pre-request check', detail = current_setting('role');
  end if;
  if current_setting('request.cookies', true)::json ->> 'ban' = 'yes' then
    raise exception 'banned cookie';
  end if;
  if current_setting('request.method', true) = 'DELETE' and current_setting('role') = 'anon' then
    raise sqlstate 'PT405' using message = 'anon may not delete';
  end if;
  perform set_config('response.headers', '[{"x-pre-request": "ran"}]', true);
  if headers ->> 'x-teapot' is not null then
    perform set_config('response.status', '418', true);
  end if;
end $$;
create schema pre_check;
create function pre_check.always_refuse() returns void language plpgsql as $$
begin raise sqlstate 'PT401' using message = 'refused'; end $$;
grant usage on schema pre_check to anon, authenticated, service_role;
insert into public.notes values (1, 'first');`;

let plain: Localbase;
let checked: Localbase;
let otherSchema: Localbase;

beforeAll(async () => {
  [plain, checked, otherSchema] = await Promise.all([
    startFixtureStack(),
    startFixtureStack({ preRequest: 'public.check_request' }),
    startFixtureStack({ preRequest: 'pre_check.always_refuse' }),
  ]);
  for (const stack of [plain, checked, otherSchema]) {
    const loaded = await managementQuery(stack, SCHEMA);
    expect(loaded.status, await loaded.text()).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([plain, checked, otherSchema].map((stack) => stack?.close()));
});

describe('request.cookies', () => {
  it('holds the Cookie header as an object, the last of a repeated name winning', async () => {
    const answer = await rest(plain, 'rpc/my_cookies', { headers: { cookie: 'a=1; b=x=y;c;  a=2; q="v%20w"' } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ a: '2', b: 'x=y', c: '', q: '"v%20w"' });
  });

  it('is an empty object without cookies, and the Cookie header is not in request.headers', async () => {
    const none = await rest(plain, 'rpc/my_cookies');
    expect(none.json).toEqual({});
    const headers = await rest(plain, 'rpc/my_headers', { headers: { cookie: 'sid=secret', 'x-app': 'one' } });
    expect(headers.json).toMatchObject({ 'x-app': 'one' });
    expect(headers.json).not.toHaveProperty('cookie');
  });

  it('keeps a cookie named __proto__ as a plain key', () => {
    const cookies = requestCookies('__proto__=x; constructor=y');
    expect(Object.getPrototypeOf(cookies)).toBe(Object.prototype);
    expect(JSON.stringify(cookies)).toBe('{"__proto__":"x","constructor":"y"}');
    expect(exposedHeaders({ Cookie: 'a=1', 'X-One': 'b' })).toEqual({ 'x-one': 'b' });
  });
});

describe('db-pre-request', () => {
  it('is off by default: nothing is called and no header is added', async () => {
    const answer = await rest(plain, 'notes?select=id', { headers: { 'x-block': '1' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-pre-request')).toBeNull();
  });

  it('answers the headers and status it sets, on reads, writes and calls', async () => {
    const read = await rest(checked, 'notes?select=id');
    expect(read.status).toBe(200);
    expect(read.headers.get('x-pre-request')).toBe('ran');
    expect(read.json).toEqual([{ id: 1 }]);
    const teapot = await rest(checked, 'notes?select=id', { headers: { 'x-teapot': '1' } });
    expect(teapot.status).toBe(418);
    const written = await rest(checked, 'notes', { method: 'POST', body: '{"id":2,"body":"second"}' });
    expect(written.status).toBe(201);
    expect(written.headers.get('x-pre-request')).toBe('ran');
    const called = await rest(checked, 'rpc/my_cookies', { headers: { cookie: 'a=1' } });
    expect(called.status).toBe(200);
    expect(called.headers.get('x-pre-request')).toBe('ran');
  });

  it('fails the request with what it raises, as the caller, and the refused write leaves nothing', async () => {
    const blocked = await rest(checked, 'notes', {
      method: 'POST',
      body: '{"id":3,"body":"third"}',
      headers: { 'x-block': '1' },
    });
    expect(blocked.status).toBe(403);
    expect(blocked.json).toMatchObject({ code: 'PT403', message: 'blocked by the pre-request check', details: 'anon' });
    const asService = await rest(checked, 'notes?select=id', {
      headers: { 'x-block': '1' },
      token: checked.serviceRoleKey,
    });
    expect(asService.status).toBe(403);
    expect((asService.json as { details: string }).details).toBe('service_role');
    const banned = await rest(checked, 'notes?select=id', { headers: { cookie: 'ban=yes' } });
    expect(banned.status).toBe(400);
    expect(banned.json).toMatchObject({ code: 'P0001', message: 'banned cookie' });
    const deleted = await rest(checked, 'notes?id=eq.1', { method: 'DELETE' });
    expect(deleted.status).toBe(405);
    const rows = await rest(checked, 'notes?select=id&order=id');
    expect(rows.json).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('guards calls too, and takes a function in a schema the API does not expose', async () => {
    const refused = await rest(otherSchema, 'notes?select=id');
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ code: 'PT401', message: 'refused' });
    const call = await rest(otherSchema, 'rpc/my_cookies', { method: 'POST', body: '{}' });
    expect(call.status).toBe(401);
  });
});

describe('preRequestSql', () => {
  it('quotes the name and qualifies a bare one with the default schema', () => {
    expect(preRequestSql('check', 'public')).toBe('"public"."check"');
    expect(preRequestSql('api.ch"eck', 'public')).toBe('"api"."ch""eck"');
  });

  it('refuses what is not a name or schema.name', () => {
    for (const bad of ['a.b.c', '.x', 'x.', '', 'a\0b']) expect(() => preRequestSql(bad, 'public')).toThrow();
  });
});

// The Management API's SQL endpoints as the hosted API takes them: `parameters` bound to $1..$n,
// and `database/query/read-only` (or `"read_only": true`), which runs as supabase_read_only_user in
// a read-only transaction: it reads every table, row-level security or not, and every write fails
// with the database's error, leaving nothing behind. Errors are `{message}`; a bad body is 400.
import { beforeAll, describe, expect, it } from 'vitest';
import { managementQuery } from './clients.ts';
import { startFixtureStack } from './postgrest-fixture.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startFixtureStack);

beforeAll(async () => {
  const seeded = await managementQuery(
    localbase,
    `create table public.secrets (id int primary key, note text);
     alter table public.secrets enable row level security;
     insert into public.secrets values (1, 'one'), (2, 'two');`,
  );
  expect(seeded.status).toBe(201);
});

async function call(
  path: 'database/query' | 'database/query/read-only',
  body: unknown,
  token = localbase.accessToken,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${localbase.url}/v1/projects/local/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

async function notes(): Promise<string[]> {
  const answer = await call('database/query', { query: 'select note from public.secrets order by id' });
  return (answer.json as { note: string }[]).map((row) => row.note);
}

describe('parameters', () => {
  it('binds them to $1..$n, typed by where they are used', async () => {
    const answer = await call('database/query', {
      query: 'select id, note from public.secrets where id = $1 or note = $2 order by id',
      parameters: [1, 'two'],
    });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual([
      { id: 1, note: 'one' },
      { id: 2, note: 'two' },
    ]);
  });

  it('binds null, booleans, JSON and arrays', async () => {
    const answer = await call('database/query', {
      query: 'select $1::text is null as missing, $2::boolean as flag, $3::jsonb as doc, $4::int[] as list',
      parameters: [null, true, { a: [1, 2] }, [3, 4]],
    });
    expect(answer.json).toEqual([{ missing: true, flag: true, doc: { a: [1, 2] }, list: [3, 4] }]);
  });

  it('keeps a value a value: SQL in a parameter is never run', async () => {
    const answer = await call('database/query', {
      query: 'select count(*)::int as n from public.secrets where note = $1',
      parameters: ["x'; drop table public.secrets; --"],
    });
    expect(answer.json).toEqual([{ n: 0 }]);
    expect(await notes()).toEqual(['one', 'two']);
  });

  it('writes with parameters and answers the returned rows', async () => {
    const answer = await call('database/query', {
      query: 'insert into public.secrets values ($1, $2) returning id',
      parameters: [3, 'three'],
    });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual([{ id: 3 }]);
    await call('database/query', { query: 'delete from public.secrets where id = $1', parameters: [3] });
  });

  it("answers the database's error for a wrong count of parameters or several statements", async () => {
    const missing = await call('database/query', { query: 'select $1::int + $2::int as n', parameters: [1] });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ message: expect.stringMatching(/parameters|bind message/i) });
    const several = await call('database/query', { query: 'select $1::int; select 2', parameters: [1] });
    expect(several.status).toBe(400);
    expect(several.json).toEqual({ message: expect.stringContaining('multiple commands') });
  });

  it('runs several statements when there are no parameters, as before', async () => {
    const answer = await call('database/query', { query: 'select 1 as a; select 2 as b', parameters: [] });
    expect(answer.json).toEqual([{ b: 2 }]);
  });
});

describe('read-only', () => {
  it('reads every row as supabase_read_only_user, row-level security notwithstanding', async () => {
    const answer = await call('database/query/read-only', {
      query: 'select current_user as who, count(*)::int as n from public.secrets where id >= $1',
      parameters: [1],
    });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual([{ who: 'supabase_read_only_user', n: 2 }]);
  });

  it.each([
    ['an insert', 'insert into public.secrets values (9, $$nine$$)'],
    ['an update', 'update public.secrets set note = $$changed$$'],
    ['a delete', 'delete from public.secrets'],
    ['DDL', 'drop table public.secrets'],
    ['a function that writes', 'select public.delete_counters(1000)'],
  ])('refuses %s with the database error, changing nothing', async (_name, query) => {
    const answer = await call('database/query/read-only', { query });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      message: expect.stringMatching(/read-only transaction|permission denied|must be owner/),
    });
    expect(await notes()).toEqual(['one', 'two']);
  });

  it('cannot end its transaction and go on as the owner', async () => {
    const answer = await call('database/query/read-only', {
      query: 'commit; reset role; delete from public.secrets',
    });
    expect(answer.status).toBe(400);
    expect(await notes()).toEqual(['one', 'two']);
    const who = await call('database/query', { query: 'select current_user as who' });
    expect(who.json).not.toEqual([{ who: 'supabase_read_only_user' }]);
  });

  it('is also what "read_only": true asks of database/query', async () => {
    const read = await call('database/query', { query: 'select current_user as who', read_only: true });
    expect(read.json).toEqual([{ who: 'supabase_read_only_user' }]);
    const write = await call('database/query', { query: 'delete from public.secrets', read_only: true });
    expect(write.status).toBe(400);
    expect(await notes()).toEqual(['one', 'two']);
  });

  it('needs the access token (401, nothing run)', async () => {
    const refused = await call('database/query/read-only', { query: 'select 1' }, 'sbp_wrong');
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual({ message: 'Unauthorized' });
  });
});

describe('bad bodies', () => {
  it.each([
    ['no query', {}],
    ['an empty query', { query: '' }],
    ['parameters that are not an array', { query: 'select 1', parameters: { a: 1 } }],
    ['read_only that is not a boolean', { query: 'select 1', read_only: 'yes' }],
  ])('answers 400 {message} to %s', async (_name, body) => {
    for (const path of ['database/query', 'database/query/read-only'] as const) {
      const answer = await call(path, body);
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({ message: expect.stringContaining('body must be') });
    }
  });

  it('answers 400 {message} to a body that is not JSON', async () => {
    const answer = await call('database/query/read-only', '{"query":');
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ message: expect.any(String) });
  });
});

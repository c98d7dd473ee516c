// How a Data API request's transaction ends (PostgREST's db-tx-end): `commit` (the default) and
// `rollback` decide alone and `Prefer: tx=` is ignored; `commit-allow-override` and
// `rollback-allow-override` let `tx=commit` / `tx=rollback` choose, and say so in
// Preference-Applied. A rolled-back request answers what it did (status, rows, headers) and leaves
// nothing behind; deferred constraints are checked before the rollback, as PostgREST checks them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TxEnd } from '../../src/rest/prefer.ts';
import type { Localbase } from '../../server.ts';
import { clientFor, managementQuery } from '../clients.ts';
import { rest, startFixtureStack } from '../postgrest-fixture.ts';

const MODES: TxEnd[] = ['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override'];
const stacks = new Map<TxEnd, Localbase>();

const SCHEMA = `
create table public.items (id int primary key, note text);
create table public.deferred_items (
  id int primary key,
  code int,
  constraint deferred_code unique (code) deferrable initially deferred
);
create function public.add_item(p_id int) returns setof public.items
language sql as $$ insert into public.items (id) values (p_id) returning * $$;
insert into public.items values (1, 'kept');`;

beforeAll(async () => {
  const started = await Promise.all(MODES.map((txEnd) => startFixtureStack({ txEnd })));
  started.forEach((stack, index) => stacks.set(MODES[index] as TxEnd, stack));
  for (const stack of started) expect((await managementQuery(stack, SCHEMA)).status).toBe(201);
});

afterAll(async () => {
  await Promise.all([...stacks.values()].map((stack) => stack.close()));
});

function stack(mode: TxEnd): Localbase {
  return stacks.get(mode) as Localbase;
}

async function ids(localbase: Localbase): Promise<number[]> {
  const answer = await rest(localbase, 'items?select=id&order=id');
  return (answer.json as { id: number }[]).map((row) => row.id);
}

function post(localbase: Localbase, id: number, prefer: string) {
  return rest(localbase, 'items', { method: 'POST', body: JSON.stringify({ id }), headers: { prefer } });
}

describe('db-tx-end = commit (the default)', () => {
  it('commits and ignores tx=rollback, which Preference-Applied does not list', async () => {
    const lb = stack('commit');
    const answer = await post(lb, 10, 'return=representation, tx=rollback');
    expect(answer.status).toBe(201);
    expect(answer.headers.get('preference-applied')).toBe('return=representation');
    expect(await ids(lb)).toContain(10);
  });

  it('does not refuse tx= under handling=strict (PostgREST always knows it), but refuses an unknown value', async () => {
    const lb = stack('commit');
    const known = await post(lb, 11, 'handling=strict, tx=rollback');
    expect(known.status).toBe(201);
    expect(known.headers.get('preference-applied')).toBe('handling=strict');
    expect(await ids(lb)).toContain(11);
    const unknown = await post(lb, 12, 'handling=strict, tx=abort');
    expect(unknown.status).toBe(400);
    expect(unknown.json).toEqual({
      code: 'PGRST122',
      details: 'Invalid preferences: tx=abort',
      hint: null,
      message: 'Invalid preferences given with handling=strict',
    });
    expect(await ids(lb)).not.toContain(12);
  });
});

describe('db-tx-end = commit-allow-override', () => {
  it('rolls back a POST asked to, answering its rows and tx=rollback', async () => {
    const lb = stack('commit-allow-override');
    const answer = await post(lb, 20, 'return=representation, tx=rollback');
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual([{ id: 20, note: null }]);
    expect(answer.headers.get('preference-applied')).toBe('return=representation, tx=rollback');
    expect(await ids(lb)).not.toContain(20);
  });

  it('rolls back PATCH, DELETE, PUT and a function call, and commits without the preference', async () => {
    const lb = stack('commit-allow-override');
    const headers = { prefer: 'tx=rollback' };
    const patched = await rest(lb, 'items?id=eq.1', { method: 'PATCH', body: '{"note":"changed"}', headers });
    expect(patched.status).toBe(204);
    const deleted = await rest(lb, 'items?id=eq.1', { method: 'DELETE', headers });
    expect(deleted.status).toBe(204);
    const put = await rest(lb, 'items?id=eq.21', { method: 'PUT', body: '{"id":21}', headers });
    expect(put.status).toBe(204);
    const called = await rest(lb, 'rpc/add_item', { method: 'POST', body: '{"p_id":22}', headers });
    expect(called.status).toBe(200);
    expect(called.json).toEqual([{ id: 22, note: null }]);
    expect(called.headers.get('preference-applied')).toBe('tx=rollback');
    const kept = await rest(lb, 'items?id=eq.1');
    expect(kept.json).toEqual([{ id: 1, note: 'kept' }]);
    expect(await ids(lb)).toEqual([1]);
    const committed = await post(lb, 23, 'tx=commit');
    expect(committed.status).toBe(201);
    expect(committed.headers.get('preference-applied')).toBe('tx=commit');
    expect(await ids(lb)).toContain(23);
  });

  it('names tx= in Preference-Applied on reads too, as PostgREST', async () => {
    const answer = await rest(stack('commit-allow-override'), 'items?id=eq.1', { headers: { prefer: 'tx=commit' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('preference-applied')).toBe('tx=commit');
  });

  it('rolls back through supabase-js when the request asks for it', async () => {
    const lb = stack('commit-allow-override');
    const { error, status } = await clientFor(lb)
      .from('items')
      .insert({ id: 24 })
      .setHeader('Prefer', 'return=minimal, tx=rollback');
    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(await ids(lb)).not.toContain(24);
  });

  it('checks deferred constraints before rolling back', async () => {
    const lb = stack('commit-allow-override');
    const answer = await rest(lb, 'deferred_items', {
      method: 'POST',
      body: JSON.stringify([
        { id: 1, code: 7 },
        { id: 2, code: 7 },
      ]),
      headers: { prefer: 'tx=rollback' },
    });
    expect(answer.status).toBe(409);
    expect((answer.json as { code: string }).code).toBe('23505');
  });
});

describe('db-tx-end = rollback', () => {
  it('rolls back every write and ignores tx=commit', async () => {
    const lb = stack('rollback');
    const plain = await post(lb, 30, 'return=representation');
    expect(plain.status).toBe(201);
    expect(plain.json).toEqual([{ id: 30, note: null }]);
    const overridden = await post(lb, 31, 'tx=commit');
    expect(overridden.status).toBe(201);
    expect(overridden.headers.get('preference-applied')).toBeNull();
    expect(await ids(lb)).toEqual([1]);
  });
});

describe('db-tx-end = rollback-allow-override', () => {
  it('rolls back by default and commits when asked', async () => {
    const lb = stack('rollback-allow-override');
    expect((await post(lb, 40, 'return=minimal')).status).toBe(201);
    expect(await ids(lb)).toEqual([1]);
    const committed = await post(lb, 41, 'tx=commit');
    expect(committed.headers.get('preference-applied')).toBe('tx=commit');
    expect(await ids(lb)).toEqual([1, 41]);
  });
});

// Query plans (PostgREST's db-plan-enabled): `Accept: application/vnd.pgrst.plan(+json|+text);
// for="..."; options=...` (supabase-js `.explain()`) answers 200 with EXPLAIN of the statement the
// request would run, for reads, writes and calls, as the caller: row-level security and the role's
// statement timeout apply to what `analyze` runs, and what it wrote is rolled back. Off by default,
// where the media type is 406 PGRST107 like any type localbase does not produce.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openProductParityDatabase } from '#tools/testing/parity-database.ts';
import { overrideStatementTimeoutsForTests } from '../src/statement-timeouts.ts';
import { inlineParameters } from '../src/rest/route-context.ts';
import { startLocalbase, type Localbase } from '../server.ts';
import { clientFor, managementQuery } from './clients.ts';
import { rest, startFixtureStack } from './postgrest-fixture.ts';

let enabled: Localbase;
let disabled: Localbase;
let db: SupabaseClient;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  Output?: string[];
  Plans?: PlanNode[];
}
type JsonPlan = { Plan: PlanNode; 'Planning Time'?: number; Settings?: object }[];

function findNode(node: PlanNode, relation: string): PlanNode | undefined {
  if (node['Relation Name'] === relation) return node;
  for (const child of node.Plans ?? []) {
    const found = findNode(child, relation);
    if (found) return found;
  }
  return undefined;
}

const JSON_PLAN = 'application/vnd.pgrst.plan+json; for="application/json"';

beforeAll(async () => {
  [enabled, disabled] = await Promise.all([startFixtureStack({ plans: true }), startFixtureStack()]);
  db = clientFor(enabled);
  const seeded = await managementQuery(
    enabled,
    `create table public.ledger (id int primary key, visible boolean not null, amount int not null);
     alter table public.ledger enable row level security;
     grant select on public.ledger to anon, authenticated;
     create policy ledger_visible on public.ledger for select to anon using (visible);
     insert into public.ledger values (1, true, 10), (2, true, 20), (3, false, 1000);`,
  );
  expect(seeded.status).toBe(201);
});

afterAll(async () => {
  await Promise.all([enabled?.close(), disabled?.close()]);
});

describe('query plans enabled', () => {
  it('answers a read with its text plan through supabase-js .explain()', async () => {
    const { data, error, status } = await db.from('films').select('title').eq('id', 1).explain();
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(typeof data).toBe('string');
    expect(data as unknown as string).toMatch(/^Aggregate {2}\(cost=/);
    expect(data as unknown as string).toMatch(/\n$/);
    const raw = await rest(enabled, 'films?select=title', { headers: { accept: 'application/vnd.pgrst.plan' } });
    expect(raw.headers.get('content-type')).toBe(
      'application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8',
    );
    expect(raw.headers.get('content-range')).toBeNull();
  });

  it('answers the JSON plan with the options asked for, named in PostgREST order', async () => {
    const answer = await rest(enabled, 'films?select=title', {
      headers: { accept: `${JSON_PLAN}; options=wal|buffers|settings|verbose|analyze` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe(
      'application/vnd.pgrst.plan+json; for="application/json"; options=analyze|verbose|settings|buffers|wal; charset=utf-8',
    );
    const [plan] = answer.json as JsonPlan;
    expect(plan?.Plan['Node Type']).toBe('Aggregate');
    expect(plan?.Plan['Actual Rows']).toBe(1);
    expect(plan?.Plan.Output).toBeDefined();
    expect(plan?.['Planning Time']).toEqual(expect.any(Number));
    const { data } = await db.from('films').select('title').explain({ format: 'json', analyze: true });
    expect((data as unknown as JsonPlan)[0]?.Plan['Actual Rows']).toBe(1);
  });

  it('plans for another produced type, and refuses one it does not produce', async () => {
    const single = await rest(enabled, 'films?select=title&id=eq.1', {
      headers: { accept: 'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"' },
    });
    expect(single.status).toBe(200);
    expect(single.headers.get('content-type')).toBe(
      'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; charset=utf-8',
    );
    const csv = await rest(enabled, 'films', {
      headers: { accept: 'application/vnd.pgrst.plan+json; for="text/csv"' },
    });
    expect(csv.headers.get('content-type')).toBe('application/vnd.pgrst.plan+json; for="text/csv"; charset=utf-8');
    const xml = await rest(enabled, 'films', {
      headers: { accept: 'application/vnd.pgrst.plan+json; for="text/xml"' },
    });
    expect(xml.status).toBe(406);
    expect(xml.json).toEqual({
      code: 'PGRST107',
      details: null,
      hint: null,
      message: 'None of these media types are available: application/vnd.pgrst.plan+json; for="text/xml"',
    });
  });

  it('writes the values into the planned statement as literals, never as SQL', async () => {
    const hostile = `x'"$1\\'); delete from public.counters; --`;
    const answer = await rest(enabled, `films?select=title&title=eq.${encodeURIComponent(hostile)}`, {
      headers: { accept: `${JSON_PLAN}; options=analyze|verbose` },
    });
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.json)).toContain('delete from public.counters');
    expect(findNode((answer.json as JsonPlan)[0]?.Plan as PlanNode, 'films')?.['Actual Rows']).toBe(0);
    const counters = await rest(enabled, 'counters?select=id');
    expect((counters.json as unknown[]).length).toBeGreaterThan(0);
    const nul = await rest(enabled, `films?title=eq.a%00b`, { headers: { accept: JSON_PLAN } });
    expect(nul.status).toBe(400);
  });

  it('plans writes without changing anything, even with analyze', async () => {
    const before = await rest(enabled, 'counters?select=id,name,value&order=id');
    const headers = { accept: `${JSON_PLAN}; options=analyze`, prefer: 'return=representation' };
    const inserted = await rest(enabled, 'counters', { method: 'POST', body: '{"name":"planned"}', headers });
    expect(inserted.status).toBe(200);
    expect(findNode((inserted.json as JsonPlan)[0]?.Plan as PlanNode, 'counters')).toBeDefined();
    const patched = await rest(enabled, 'counters?id=gt.0', { method: 'PATCH', body: '{"value":7}', headers });
    expect(patched.status).toBe(200);
    const deleted = await rest(enabled, 'counters?id=gt.0', { method: 'DELETE', headers });
    expect(deleted.status).toBe(200);
    const explained = await db.from('counters').insert({ name: 'via-client' }).explain({ analyze: true });
    expect(explained.status).toBe(200);
    expect(explained.data as unknown as string).toContain('Insert on counters');
    const after = await rest(enabled, 'counters?select=id,name,value&order=id');
    expect(after.json).toEqual(before.json);
  });

  it('plans function calls, undoing what a called function wrote under analyze', async () => {
    const read = await db.rpc('getallfilms').explain({ format: 'json' });
    expect(read.status).toBe(200);
    const before = await rest(enabled, 'counters?select=id&order=id');
    const call = await rest(enabled, 'rpc/delete_counters', {
      method: 'POST',
      body: '{"p_below":1000}',
      headers: { accept: `${JSON_PLAN}; options=analyze` },
    });
    expect(call.status).toBe(200);
    expect((call.json as JsonPlan)[0]?.Plan['Actual Rows']).toBe(1);
    const after = await rest(enabled, 'counters?select=id&order=id');
    expect(after.json).toEqual(before.json);
    expect((after.json as unknown[]).length).toBeGreaterThan(0);
  });

  it('runs analyze as the caller: row-level security decides the rows it reads', async () => {
    const headers = { accept: `${JSON_PLAN}; options=analyze` };
    const anon = await rest(enabled, 'ledger?select=amount', { headers });
    const asService = await rest(enabled, 'ledger?select=amount', { headers, token: enabled.serviceRoleKey });
    const scanned = (answer: { json: unknown }) =>
      findNode((answer.json as JsonPlan)[0]?.Plan as PlanNode, 'ledger')?.['Actual Rows'];
    expect(scanned(anon)).toBe(2);
    expect(scanned(asService)).toBe(3);
  });
});

// On the database as the product opens it (PGlite in its worker thread, whose watchdog enforces
// the timeout; PostgreSQL 15 itself), with the anon timeout shortened for the test.
describe('query plans and the statement timeout', () => {
  let product: Localbase;
  let database: Database;
  let dataDir: string;

  beforeAll(async () => {
    database = await openProductParityDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-plan-'));
    product = await startLocalbase({ dataDir, database, port: 0, plans: true });
    const seeded = await managementQuery(
      product,
      `create function public.spin() returns bigint language sql stable
         as $$ select count(*) from generate_series(1, 300000000) $$;
       grant execute on function public.spin() to anon;`,
    );
    expect(seeded.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await product?.close();
    await database?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops analyze at the role statement timeout (500, 57014); planning alone is answered', async () => {
    const plain = await rest(product, 'rpc/spin', { headers: { accept: JSON_PLAN } });
    expect(plain.status).toBe(200);
    const restore = overrideStatementTimeoutsForTests({ anon: 300 });
    try {
      const analyzed = await rest(product, 'rpc/spin', { headers: { accept: `${JSON_PLAN}; options=analyze` } });
      expect(analyzed.status).toBe(500);
      expect((analyzed.json as { code: string }).code).toBe('57014');
    } finally {
      restore();
    }
    const after = await rest(product, 'rpc/spin', { headers: { accept: JSON_PLAN } });
    expect(after.status).toBe(200);
  }, 60_000);
});

describe('inlineParameters', () => {
  it('replaces parameters outside quotes only, doubling quotes in values', () => {
    const sql = `SELECT "a$1", 'b$1', $1, $2::int, x$1 FROM t WHERE c = ANY ($3)`;
    expect(inlineParameters(sql, [`it's`, '5', null])).toBe(
      `SELECT "a$1", 'b$1', 'it''s', '5'::int, x$1 FROM t WHERE c = ANY (NULL)`,
    );
  });
});

describe('query plans off (the default)', () => {
  it('answers 406 PGRST107 naming the plan type, as for any type not produced', async () => {
    const answer = await rest(disabled, 'films', { headers: { accept: `${JSON_PLAN}; options=analyze` } });
    expect(answer.status).toBe(406);
    expect(answer.json).toEqual({
      code: 'PGRST107',
      details: null,
      hint: null,
      message: `None of these media types are available: ${JSON_PLAN}; options=analyze`,
    });
  });

  it('refuses supabase-js .explain() on reads, writes and calls, and writes nothing', async () => {
    const client = clientFor(disabled);
    const read = await client.from('films').select('title').explain();
    expect(read.status).toBe(406);
    expect(read.error?.code).toBe('PGRST107');
    const write = await client.from('counters').insert({ name: 'not-planned' }).explain({ analyze: true });
    expect(write.status).toBe(406);
    const call = await client.rpc('film_count').explain();
    expect(call.status).toBe(406);
    const after = await rest(disabled, 'counters?name=eq.not-planned');
    expect(after.json).toEqual([]);
  });

  it('still answers a plan type listed after one it produces', async () => {
    const answer = await rest(disabled, 'films?select=id&id=eq.1', {
      headers: { accept: `${JSON_PLAN}, application/json;q=0.5` },
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([{ id: 1 }]);
  });
});

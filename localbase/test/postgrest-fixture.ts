// A localbase for the Data API conformance files: the file's parity database (a copy of the run's
// template on PostgreSQL 15 in `npm test`, or PGlite) with the fixture of fixtures/postgrest-fixture.sql loaded
// through the management API, and `public` plus `archive` exposed.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { startLocalbase, type Localbase, type LocalbaseOptions } from '../server.ts';
import { managementQuery } from './clients.ts';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'postgrest-fixture.sql');

export const FIXTURE_SCHEMAS = ['public', 'archive'] as const;

/** The PostgREST settings a conformance file may turn on (all off by default, as in PostgREST). */
export type FixtureSettings = Pick<
  LocalbaseOptions,
  'maxRows' | 'aggregates' | 'plans' | 'txEnd' | 'preRequest' | 'hoistedTxSettings'
>;

export async function startFixtureStack(options: FixtureSettings = {}): Promise<Localbase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-postgrest-'));
  const database = await openParityDatabase();
  let localbase: Localbase | undefined;
  try {
    localbase = await startLocalbase({
      dataDir,
      database,
      port: 0,
      schemas: FIXTURE_SCHEMAS,
      ...options,
    });
    const loaded = await managementQuery(localbase, await readFile(FIXTURE, 'utf8'));
    if (loaded.status !== 201) throw new Error(`fixture failed to load: ${await loaded.text()}`);
    const running = localbase;
    return {
      ...running,
      close: async () => {
        await running.close();
        await database.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await localbase?.close();
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A ledger whose policy shows anon only the rows marked public (ids 1 and 2 of 1, 2 and 3). */
export async function seedLedger(localbase: Localbase): Promise<void> {
  const seeded = await managementQuery(
    localbase,
    `create table public.ledger (id int primary key, visible boolean not null, amount int not null);
     alter table public.ledger enable row level security;
     grant select on public.ledger to anon, authenticated;
     create policy ledger_visible on public.ledger for select to anon using (visible);
     insert into public.ledger values (1, true, 10), (2, true, 20), (3, false, 1000);`,
  );
  if (seeded.status !== 201) throw new Error(`ledger failed to load: ${await seeded.text()}`);
}

/** Raw HTTP against /rest/v1 with the anon key (or another key/token), for what supabase-js cannot say. */
export async function rest(
  localbase: Localbase,
  pathAndQuery: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; token?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  const response = await fetch(`${localbase.url}/rest/v1/${pathAndQuery}`, {
    method: init.method ?? 'GET',
    headers: {
      apikey: localbase.anonKey,
      authorization: `Bearer ${init.token ?? localbase.anonKey}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

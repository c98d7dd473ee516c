// The mutant generator and its equivalence rules, on hand-made catalogs: which mutants exist for
// which clauses, and exactly when one is set aside as unable to change behaviour.
import { describe, expect, it } from 'vitest';
import type { Catalog, Command, Policy, Table } from './catalog.ts';
import { mutantsOf } from './mutants.ts';
import { KillerOrder, mentionsTable } from './order.ts';

const ALL_ON = { SELECT: true, INSERT: true, UPDATE: true, DELETE: true };
const ALL_OFF = { SELECT: false, INSERT: false, UPDATE: false, DELETE: false };

function table(
  name: string,
  privileges: Partial<Record<'anon' | 'authenticated', Record<Command, boolean>>> = {},
): Table {
  return {
    schema: 'public',
    table: name,
    rlsEnabled: true,
    privileges: { anon: privileges.anon ?? ALL_OFF, authenticated: privileges.authenticated ?? ALL_ON },
  };
}

function policy(name: string, fields: Partial<Policy>): Policy {
  return {
    schema: 'public',
    table: 'notes',
    name,
    permissive: true,
    roles: ['authenticated'],
    command: 'SELECT',
    using: 'owner = auth.uid()',
    check: null,
    ...fields,
  };
}

function labelsOf(catalog: Catalog): Record<string, string | undefined> {
  return Object.fromEntries(mutantsOf(catalog).map((mutant) => [mutant.label, mutant.equivalentBecause]));
}

describe('mutantsOf', () => {
  it('widens each clause a policy has, drops it, and disables RLS once per table', () => {
    const catalog: Catalog = {
      tables: [table('notes')],
      policies: [
        policy('read own', {}),
        policy('add own', { command: 'INSERT', using: null, check: 'owner = auth.uid()' }),
        policy('edit own', { command: 'UPDATE', check: 'owner = auth.uid()' }),
      ],
    };
    const mutants = mutantsOf(catalog);
    expect(mutants.map((mutant) => mutant.label)).toEqual([
      'widen using of "read own" on public.notes',
      'drop "read own" on public.notes',
      'widen with check of "add own" on public.notes',
      'drop "add own" on public.notes',
      'widen using of "edit own" on public.notes',
      'widen with check of "edit own" on public.notes',
      'drop "edit own" on public.notes',
      'disable row level security on public.notes',
    ]);
    expect(mutants.every((mutant) => mutant.equivalentBecause === undefined)).toBe(true);
    expect(mutants[5]?.sql).toBe('alter policy "edit own" on "public"."notes" with check (true)');
    expect(mutants[7]?.sql).toBe('alter table "public"."notes" disable row level security');
  });

  it('quotes policy names that contain quotes', () => {
    const [widen] = mutantsOf({ tables: [table('notes')], policies: [policy('the "best" rule', {})] });
    expect(widen?.sql).toBe('alter policy "the ""best"" rule" on "public"."notes" using (true)');
  });

  it('sets aside widening a clause that is already true', () => {
    const labels = labelsOf({ tables: [table('notes')], policies: [policy('read all', { using: 'true' })] });
    expect(labels['widen using of "read all" on public.notes']).toBe('its USING clause is already true');
    expect(labels['drop "read all" on public.notes']).toBeUndefined();
  });

  it('sets aside widening or dropping a policy that another permissive true policy covers for the same role and command', () => {
    const labels = labelsOf({
      tables: [table('stats', { authenticated: { ...ALL_OFF, SELECT: true } })],
      policies: [
        policy('read own', { table: 'stats' }),
        policy('read all for leaderboards', { table: 'stats', using: 'true' }),
      ],
    });
    expect(labels['widen using of "read own" on public.stats']).toMatch(
      /"read all for leaderboards" already opens every row for authenticated SELECT/,
    );
    expect(labels['drop "read own" on public.stats']).toMatch(/already opens every row/);
    expect(labels['drop "read all for leaderboards" on public.stats']).toBeUndefined();
    expect(labels['disable row level security on public.stats']).toMatch(/already open every row/);
  });

  it('does not count a true policy for another role or another command as cover', () => {
    const labels = labelsOf({
      tables: [table('files', { anon: ALL_ON })],
      policies: [
        policy('anyone reads own', { table: 'files', roles: ['anon', 'authenticated'] }),
        policy('signed in read all', { table: 'files', using: 'true' }),
        policy('anyone deletes all', { table: 'files', command: 'DELETE', roles: ['public'], using: 'true' }),
      ],
    });
    expect(labels['drop "anyone reads own" on public.files']).toBeUndefined();
    expect(labels['widen using of "anyone reads own" on public.files']).toBeUndefined();
    expect(labels['disable row level security on public.files']).toBeUndefined();
  });

  it('does not treat a restrictive policy as cover, and keeps RLS-off mutants live beside one', () => {
    const labels = labelsOf({
      tables: [table('notes')],
      policies: [
        policy('read all', { using: 'true' }),
        policy('not archived', { permissive: false, using: 'archived_at is null' }),
      ],
    });
    expect(labels['drop "not archived" on public.notes']).toBeUndefined();
    expect(labels['widen using of "not archived" on public.notes']).toBeUndefined();
    expect(labels['disable row level security on public.notes']).toBeUndefined();
  });

  it('sets aside a policy whose roles hold no privilege for its command, and RLS off on a table no API role may touch', () => {
    const labels = labelsOf({
      tables: [table('outbox', { authenticated: { ...ALL_OFF, SELECT: true } })],
      policies: [
        policy('delete own', { table: 'outbox', command: 'DELETE' }),
        policy('service only', { table: 'outbox', roles: ['service_role'] }),
      ],
    });
    expect(labels['drop "delete own" on public.outbox']).toMatch(/no API role holds the privilege/);
    expect(labels['widen using of "service only" on public.outbox']).toMatch(/not to anon or authenticated/);
    expect(
      labelsOf({ tables: [table('closed', { authenticated: ALL_OFF })], policies: [] })[
        'disable row level security on public.closed'
      ],
    ).toBe('neither anon nor authenticated holds any privilege on it');
  });

  it('treats an ALL policy as every command and its USING as the check when it has none', () => {
    const labels = labelsOf({
      tables: [table('notes')],
      policies: [
        policy('own everything', { command: 'ALL' }),
        policy('open everything', { command: 'ALL', using: 'true' }),
      ],
    });
    expect(labels['drop "own everything" on public.notes']).toMatch(
      /"open everything" already opens every row for authenticated SELECT, authenticated INSERT/,
    );
    expect(labels['disable row level security on public.notes']).toMatch(/already open every row/);
  });
});

describe('KillerOrder', () => {
  const files = [
    { name: '01-a.test.sql', sql: 'select 1 from public.users' },
    { name: '02-b.test.sql', sql: 'select 1 from public.user_tasks' },
    { name: '03-c.test.sql', sql: 'insert into storage.objects values (1)' },
  ];

  it('matches a table by whole name, and storage.objects by its qualified name', () => {
    expect(mentionsTable(files[0] as never, { schema: 'public', table: 'users' })).toBe(true);
    expect(mentionsTable(files[1] as never, { schema: 'public', table: 'users' })).toBe(false);
    expect(mentionsTable(files[2] as never, { schema: 'storage', table: 'objects' })).toBe(true);
  });

  it('runs files that killed a mutant of the table first, then files naming it, then the rest in order', () => {
    const order = new KillerOrder(files);
    expect(order.order({ schema: 'public', table: 'user_tasks' }).map((file) => file.name)).toEqual([
      '02-b.test.sql',
      '01-a.test.sql',
      '03-c.test.sql',
    ]);
    order.recordKill({ schema: 'public', table: 'user_tasks' }, '03-c.test.sql');
    expect(order.order({ schema: 'public', table: 'user_tasks' }).map((file) => file.name)).toEqual([
      '03-c.test.sql',
      '02-b.test.sql',
      '01-a.test.sql',
    ]);
    expect(order.order({ schema: 'public', table: 'users' }).map((file) => file.name)).toEqual([
      '01-a.test.sql',
      '02-b.test.sql',
      '03-c.test.sql',
    ]);
  });
});

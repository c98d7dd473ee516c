// Aggregates in `select` (PostgREST's db-aggregates-enabled): `count()`, `col.sum()`, `avg()`,
// `min()`, `max()`, with casts before and after, aliases, grouped by the other selected columns
// and embeds, inside embeds, hoisted out of to-one spreads; off by default, where any aggregate is
// 400 PGRST123. Row-level security applies to what is aggregated, as to any read.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientFor } from '../clients.ts';
import { rest, seedLedger, startFixtureStack } from '../postgrest-fixture.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const enabled = fileFixture(() => startFixtureStack({ aggregates: true }));
const disabled = fileFixture(() => startFixtureStack());
let db: SupabaseClient;

beforeAll(async () => {
  db = clientFor(enabled);
  await seedLedger(enabled);
});

describe('aggregates enabled', () => {
  it('counts rows with count(), through supabase-js', async () => {
    const { data, error } = await db.from('films').select('count()');
    expect(error).toBeNull();
    expect(data).toEqual([{ count: 5 }]);
    const filtered = await db.from('films').select('count()').eq('language', 'english');
    expect(filtered.data).toEqual([{ count: 3 }]);
  });

  it('sums, averages and takes the extremes, named after the function or the alias', async () => {
    const answer = await rest(enabled, 'films?select=rating.sum(),rating.avg(),lowest:year.min(),newest:year.max()');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([{ sum: 37.7, avg: 7.54, lowest: 1894, newest: 1994 }]);
  });

  it('casts the column before aggregating and the result after', async () => {
    // 7.1, 6.9, 6.5, 8.9, 8.3 as int: 7 + 7 + 7 + 9 + 8.
    const before = await rest(enabled, 'films?select=rating::int.sum()');
    expect(before.json).toEqual([{ sum: 38 }]);
    const after = await rest(enabled, 'films?select=total:rating.sum()::int');
    expect(after.json).toEqual([{ total: 38 }]);
    const counted = await rest(enabled, 'films?select=count()::text');
    expect(counted.json).toEqual([{ count: '5' }]);
  });

  it('groups by the other selected columns, aliased or not', async () => {
    const { data } = await db.from('films').select('language, count()').order('language');
    expect(data).toEqual([
      { language: 'english', count: 3 },
      { language: 'french', count: 2 },
    ]);
    const aliased = await rest(enabled, 'films?select=lang:language,best:rating.max()&order=language.desc');
    expect(aliased.json).toEqual([
      { lang: 'french', best: 7.1 },
      { lang: 'english', best: 8.9 },
    ]);
  });

  it('aggregates inside a to-many embed, per parent', async () => {
    const answer = await rest(enabled, 'directors?select=last_name,films(count(),rating.max())&order=id');
    expect(answer.json).toEqual([
      { last_name: 'Dickson', films: [{ count: 1, max: 6.9 }] },
      { last_name: 'Lumière', films: [{ count: 1, max: 7.1 }] },
      { last_name: 'Méliès', films: [{ count: 1, max: 6.5 }] },
      { last_name: 'Tarantino', films: [{ count: 2, max: 8.9 }] },
    ]);
  });

  it('groups by a to-one embed and by the columns of a to-one spread', async () => {
    const embedded = await rest(enabled, 'films?select=count(),directors(last_name)');
    const byDirector = (embedded.json as { count: number; directors: { last_name: string } }[]).sort((a, b) =>
      a.directors.last_name.localeCompare(b.directors.last_name),
    );
    expect(embedded.status).toBe(200);
    expect(byDirector).toEqual([
      { count: 1, directors: { last_name: 'Dickson' } },
      { count: 1, directors: { last_name: 'Lumière' } },
      { count: 1, directors: { last_name: 'Méliès' } },
      { count: 2, directors: { last_name: 'Tarantino' } },
    ]);
    const spread = await rest(enabled, 'films?select=rating.sum(),...directors(last_name)&director_id=gt.2');
    expect((spread.json as { last_name: string }[]).sort((a, b) => a.last_name.localeCompare(b.last_name))).toEqual([
      { sum: 6.5, last_name: 'Méliès' },
      { sum: 17.2, last_name: 'Tarantino' },
    ]);
  });

  it('applies an aggregate written inside a to-one spread in the parent (hoisted)', async () => {
    // technical_specs exist for films 4 and 5 (8.9 and 8.3).
    const answer = await rest(enabled, 'technical_specs?select=camera,...films(total:rating.sum())');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([{ camera: 'Arriflex 35-III', total: 17.2 }]);
  });

  it('refuses an aggregate in a to-many spread with PGRST127, as PostgREST', async () => {
    const answer = await rest(enabled, 'directors?select=last_name,...films(rating.sum())');
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      code: 'PGRST127',
      details: 'Aggregates are not implemented for one-to-many or many-to-many spreads.',
      hint: null,
      message: 'Feature not implemented',
    });
  });

  it('aggregates only the rows row-level security lets the caller read', async () => {
    const anon = await rest(enabled, 'ledger?select=count(),amount.sum()');
    expect(anon.json).toEqual([{ count: 2, sum: 30 }]);
    const service = await rest(enabled, 'ledger?select=count(),amount.sum()', { token: enabled.serviceRoleKey });
    expect(service.json).toEqual([{ count: 3, sum: 1030 }]);
  });
});

describe('aggregates off (the default)', () => {
  const refusal = { code: 'PGRST123', details: null, hint: null, message: 'Use of aggregate functions is not allowed' };

  it.each([
    ['count()', 'films?select=count()'],
    ['sum() with a cast', 'films?select=rating::int.sum()'],
    ['inside an embed', 'directors?select=last_name,films(count())'],
    ['inside a to-one spread', 'technical_specs?select=camera,...films(rating.sum())'],
  ])('answers 400 PGRST123 to %s', async (_name, query) => {
    const answer = await rest(disabled, query);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual(refusal);
  });

  it('answers supabase-js the same', async () => {
    const { data, error, status } = await clientFor(disabled).from('films').select('count()');
    expect(status).toBe(400);
    expect(data).toBeNull();
    expect(error?.code).toBe('PGRST123');
  });

  it('still reads a column named like an aggregate', async () => {
    const answer = await rest(disabled, 'films?select=title&id=eq.4');
    expect(answer.json).toEqual([{ title: 'Pulp Fiction' }]);
  });
});

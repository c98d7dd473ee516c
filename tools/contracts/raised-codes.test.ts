// The registry of raised codes (contracts/raised-codes.ts) holds exactly what the SQL raises: every
// code a migration or platform file raises, with the SQLSTATE it is raised with, and nothing that
// is raised nowhere; docs/database.md's table says the same. The first blocks prove the reader and
// the comparison can fail (planted raises, a planted stale entry; each named among whatever else
// differs, so only the real comparison below fails when a migration brings a new code); the last
// run them on the real files.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { readMigrationFiles, readPlatformFiles } from '#db/sql-files.ts';
import { RAISED_CODES, type RaisedCode } from '#contracts/raised-codes.ts';
import { raisesIn, raisesInFiles, type SqlRaise } from './sql-raises.ts';

/** What differs between the raises found and a registry, one sentence each. */
function registryProblems(raises: readonly SqlRaise[], registry: Record<string, RaisedCode>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { code, sqlstate, file, line } of raises) {
    seen.add(`${code} ${sqlstate}`);
    const entry = Object.hasOwn(registry, code) ? registry[code] : undefined;
    if (!entry) problems.push(`${code} (${sqlstate}) is raised in ${file}:${line} and missing from the registry`);
    else if (!entry.sqlstates.includes(sqlstate))
      problems.push(`${code} is raised with ${sqlstate} in ${file}:${line}; the registry has ${entry.sqlstates}`);
  }
  for (const [code, entry] of Object.entries(registry)) {
    for (const sqlstate of entry.sqlstates) {
      if (!seen.has(`${code} ${sqlstate}`))
        problems.push(`${code} (${sqlstate}) is in the registry and raised nowhere`);
    }
  }
  return [...new Set(problems)];
}

const sqlFiles = [...(await readPlatformFiles()), ...(await readMigrationFiles())];
const found = raisesInFiles(sqlFiles);

describe('the raise reader', () => {
  it('reads every form PL/pgSQL has for a raise with a literal code', () => {
    const sql = `
      create function public.f() returns void language plpgsql as $$
      begin
        raise exception 'first_code' using errcode = 'P0004',
          hint = 'what to do';
        RAISE EXCEPTION 'second_code' USING HINT = 'hint first', ERRCODE = 'P0005';
        raise 'third_code';
        raise exception using message = 'fourth_code', errcode := 'P0006';
        raise sqlstate 'P0007' using message = 'fifth_code';
        raise exception E'sixth_code' using errcode = 'P0008', detail = format('%s', now());
      end
      $$;
      create function public.g() returns void language plpgsql as $body$
      begin raise exception 'seventh_code' using errcode = 'P0009'; end $body$;`;
    expect(raisesIn('fixture.sql', sql).raises.map(({ code, sqlstate, line }) => [code, sqlstate, line])).toEqual([
      ['first_code', 'P0004', 4],
      ['second_code', 'P0005', 6],
      ['third_code', 'P0001', 7],
      ['fourth_code', 'P0006', 8],
      ['fifth_code', 'P0007', 9],
      ['sixth_code', 'P0008', 10],
      ['seventh_code', 'P0009', 14],
    ]);
  });

  it('passes over comments, quoted text, levels below exception and a bare re-raise', () => {
    const sql = `
      -- raise exception 'in_a_comment' using errcode = 'P0001';
      /* raise exception 'in_a_block' /* nested */ using errcode = 'P0001'; */
      comment on function public.f() is 'raises nothing; raise exception ''quoted'' using errcode = ''P0001''';
      create function public.f() returns void language plpgsql as $$
      begin
        raise notice 'a notice %', 1;
        raise warning 'a_warning';
      exception when others then
        raise;
      end
      $$;`;
    expect(raisesIn('fixture.sql', sql)).toEqual({ raises: [], unread: [] });
  });

  it('reports a raise whose code cannot be read from the text, with the reason', () => {
    const sql = `
      raise exception 'made at run time: %', v_code using errcode = 'P0001';
      raise exception unique_violation;
      raise exception using message = v_code, errcode = 'P0001';
      raise exception 'Not A Code' using errcode = 'P0001';
      raise exception 'some_code' using errcode = 'unique_violation';`;
    expect(raisesIn('fixture.sql', sql).unread.map(({ line, reason }) => [line, reason])).toEqual([
      [2, 'a format with parameters raises a message made at run time'],
      [3, 'a condition name (unique_violation) names no code of this project'],
      [4, 'the message is an expression, not a quoted literal'],
      [5, 'the message "Not A Code" is not a stable code (lower_snake_case)'],
      [6, 'the errcode "unique_violation" is not a five-character SQLSTATE'],
    ]);
  });
});

describe('the comparison with the registry', () => {
  it('fails on a code a migration raises that the registry lacks', () => {
    const planted = raisesIn(
      '20991231000000_planted.sql',
      `create function public.planted() returns void language plpgsql as $$
       begin raise exception 'planted_code' using errcode = 'P0999', hint = 'planted by the test'; end $$;`,
    );
    expect(registryProblems([...found.raises, ...planted.raises], RAISED_CODES)).toContain(
      'planted_code (P0999) is raised in 20991231000000_planted.sql:2 and missing from the registry',
    );
  });

  it('fails on a registered code no migration raises', () => {
    const planted: Record<string, RaisedCode> = {
      ...RAISED_CODES,
      planted_entry: { sqlstates: ['P0998'], status: 400, sentence: 'x' },
    };
    expect(registryProblems(found.raises, planted)).toContain(
      'planted_entry (P0998) is in the registry and raised nowhere',
    );
  });

  it('fails on a code raised with a SQLSTATE the registry does not give it, and on a state never used', () => {
    const moved = { ...RAISED_CODES, handle_taken: { ...RAISED_CODES.handle_taken, sqlstates: ['P0013'] } };
    const problems = registryProblems(found.raises, moved);
    expect(problems).toContain('handle_taken (P0013) is in the registry and raised nowhere');
    expect(problems.filter((problem) => problem.startsWith('handle_taken is raised with P0011'))).toHaveLength(3);
  });
});

describe('the registry against the migrations', () => {
  it('reads every raise in supabase/migrations and supabase/platform', () => {
    expect(found.unread).toEqual([]);
    expect(found.raises.length).toBeGreaterThan(100);
  });

  it('holds every code raised, with its SQLSTATEs, and nothing raised nowhere', () => {
    expect(registryProblems(found.raises, RAISED_CODES)).toEqual([]);
  });

  it('gives each code a 4xx status and SQLSTATEs of the class the project raises in', () => {
    for (const [code, entry] of Object.entries(RAISED_CODES) as [string, RaisedCode][]) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(500);
      // The one exception is a refusal that must read as a policy's (42501) on every path.
      const classes = code === 'storage_owner_inactive' ? /^42501$/ : /^P0\d{3}$/;
      for (const sqlstate of entry.sqlstates) expect(sqlstate, code).toMatch(classes);
    }
  });
});

describe("docs/database.md's table of raised codes", () => {
  it('lists each code with each of its SQLSTATEs and the gateway status, as the registry does', async () => {
    const doc = await readFile(path.join(repoRoot, 'docs', 'database.md'), 'utf8');
    const section = doc.split(/^## Raised codes$/m)[1]?.split(/^## /m)[0] ?? '';
    const documented = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => {
        const [code, sqlstate, status] = line
          .split('|')
          .slice(1, 4)
          .map((cell) => cell.trim().replaceAll('`', ''));
        return `${code} ${sqlstate} ${status}`;
      });
    const registered = (Object.entries(RAISED_CODES) as [string, RaisedCode][]).flatMap(([code, entry]) =>
      entry.sqlstates.map(
        (sqlstate) => `${code} ${sqlstate} ${entry.status}${entry.gatewayCode ? ` ${entry.gatewayCode}` : ''}`,
      ),
    );
    expect(documented.length).toBe(new Set(documented).size);
    expect([...documented].sort()).toEqual([...registered].sort());
  });
});

// The RLS attack matrix, generated from the catalog: for every table in `public`, anon and bob
// (another signed-in student) each try to select, insert, update and delete alice's rows. Every
// attempt must be refused, reach nothing, or read only what a named rule in ./allowed.ts allows.
// Tables come from pg_class and a row's owner from its foreign keys to the users tables, so a new
// table joins the matrix by existing; it fails here until tools/security/world.ts seeds a row of
// alice's in it. On PostgreSQL 15 in `npm test`.
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openParityDatabase } from '../testing/parity-database.ts';
import { ANON, student, type Actor } from './acting.ts';
import { ALLOWED_READS, type AllowedRead } from './allowed.ts';
import { attack, countVictimRows, readTargets, VERBS, type Outcome, type TargetTable } from './attack.ts';
import { seedWorld } from './world.ts';

const database = await openParityDatabase();
const client: pg.PoolClient = await database.pool.connect();
const world = await seedWorld(client);
const targets = await readTargets(client);

interface Attacker {
  label: string;
  role: AllowedRead['role'];
  actor: Actor;
}

const attackers: Attacker[] = [
  { label: 'anon', role: 'anon', actor: ANON },
  { label: 'bob, another student', role: 'authenticated', actor: student(world.bob) },
];

const rulesUsed = new Set<AllowedRead>();

afterAll(async () => {
  client.release();
  await database.close();
});

function allowedRead(table: TargetTable, attacker: Attacker): AllowedRead | undefined {
  return ALLOWED_READS.find((rule) => rule.table === table.name && rule.role === attacker.role);
}

/** Why this outcome breaks the rules, or undefined when it is a refusal or an allowed read. */
function violation(outcome: Outcome, rule: AllowedRead | undefined): string | undefined {
  switch (outcome.kind) {
    case 'refused':
    case 'nothing':
      return undefined;
    case 'inconclusive':
      return `failed with an error that proves nothing about the rules: ${outcome.reason}`;
    case 'reached':
      if (rule && outcome.allowedRows === outcome.rows) {
        rulesUsed.add(rule);
        return undefined;
      }
      return (
        `reached ${outcome.rows - outcome.allowedRows} of alice's rows` +
        (rule ? ` beyond what "${rule.rule}" allows` : ', and no rule in tools/security/allowed.ts allows it')
      );
  }
}

describe(`RLS attack matrix: ${targets.length} tables x ${attackers.length} attackers x ${VERBS.length} verbs`, () => {
  it('covers every table in public', () => {
    expect(targets.length).toBeGreaterThan(20);
  });

  for (const table of targets) {
    it(`public.${table.name}: alice's rows are safe from anon and from another student`, async () => {
      if (table.ownerColumns.length === 0) {
        expect.fail(
          `public.${table.name} has no column referencing public.users(id) or auth.users(id), so the matrix ` +
            'cannot tell whose rows are whose: give the owner column its foreign key',
        );
      }
      if ((await countVictimRows(client, table, world.alice)) === 0) {
        expect.fail(
          `public.${table.name} holds no row of alice's: seed one in tools/security/world.ts, the way the app ` +
            'creates it, so the matrix can attack it',
        );
      }
      const findings: string[] = [];
      for (const attacker of attackers) {
        for (const verb of VERBS) {
          const rule = verb === 'select' ? allowedRead(table, attacker) : undefined;
          const outcome = await attack(client, table, verb, attacker.actor, world.alice, { allowedRows: rule?.rows });
          const problem = violation(outcome, rule);
          if (problem) findings.push(`${attacker.label} tried ${verb}: ${problem}`);
        }
      }
      expect(findings, `attacks on public.${table.name} that got through`).toEqual([]);
    });
  }

  it("every allowed read names a real table and is in use: it lets the attacker see some of alice's rows", () => {
    const stale = ALLOWED_READS.filter((rule) => !rulesUsed.has(rule)).map(
      (rule) => `${rule.table} (${rule.role}): ${rule.rule}`,
    );
    expect(
      stale,
      'rules in tools/security/allowed.ts that allowed nothing: remove them or seed what they cover',
    ).toEqual([]);
  });
});

// The matrix must be able to fail: each verb's cell, with the rule behind it weakened inside the
// cell's rolled-back transaction, reports the attack as having got through.
describe('the attack matrix notices a weakened rule', () => {
  const target = (name: string): TargetTable => {
    const table = targets.find((candidate) => candidate.name === name);
    if (!table) throw new Error(`public.${name} is not in the catalog`);
    return table;
  };
  /** Every policy of the table for the command, widened to true. */
  const widen = (
    table: string,
    command: string,
    clause: 'using' | 'with check' | 'using (true) with check',
  ): string => `
    do $widen$
    declare p record;
    begin
      for p in select policyname from pg_policies where schemaname = 'public' and tablename = '${table}' and cmd = '${command}' loop
        execute format('alter policy %I on public.${table} ${clause} (true)', p.policyname);
      end loop;
    end
    $widen$`;
  const bob = (): Actor => student(world.bob);

  it.each([
    ['select', 'SELECT', 'using'],
    ['insert', 'INSERT', 'with check'],
    ['update', 'UPDATE', 'using (true) with check'],
    ['delete', 'DELETE', 'using'],
  ] as const)(
    "a student's %s of alice's tasks gets through once the %s policy is widened",
    async (verb, command, clause) => {
      const outcome = await attack(client, target('user_tasks'), verb, bob(), world.alice, {
        setupSql: widen('user_tasks', command, clause),
      });
      expect(violation(outcome, undefined)).toMatch(/reached 1 of alice's rows/);
    },
  );

  it("anon reading alice's tasks gets through once anon holds the privilege and RLS is off", async () => {
    const outcome = await attack(client, target('user_tasks'), 'select', ANON, world.alice, {
      setupSql: 'grant select on public.user_tasks to anon; alter table public.user_tasks disable row level security',
    });
    expect(violation(outcome, undefined)).toMatch(/reached 1 of alice's rows/);
  });

  it("a read beyond an allowed rule is still caught: alice's private group, once every group is readable", async () => {
    const groups = target('groups');
    const rule = allowedRead(groups, attackers[1] as Attacker);
    const outcome = await attack(client, groups, 'select', bob(), world.alice, {
      allowedRows: rule?.rows,
      setupSql: widen('groups', 'SELECT', 'using'),
    });
    expect(violation(outcome, rule)).toMatch(/reached 1 of alice's rows beyond what "public groups are readable/);
  });

  it("alice's statistics are out of reach once she hides them, and a policy that still shows them is caught", async () => {
    const stats = target('daily_user_stats');
    const rule = allowedRead(stats, attackers[1] as Attacker);
    const stealth = `update public.community_enrollments set privacy = privacy || '{"stealthMode": true}' where user_id = '${world.alice}';`;
    expect(
      await attack(client, stats, 'select', bob(), world.alice, { allowedRows: rule?.rows, setupSql: stealth }),
    ).toEqual({ kind: 'nothing' });
    const outcome = await attack(client, stats, 'select', bob(), world.alice, {
      allowedRows: rule?.rows,
      setupSql: stealth + widen('daily_user_stats', 'SELECT', 'using'),
    });
    expect(violation(outcome, rule)).toMatch(/reached 1 of alice's rows beyond what "leaderboard stats are readable/);
  });

  it('an error other than a refusal is reported, never taken for one', async () => {
    const outcome = await attack(client, target('user_tasks'), 'update', bob(), world.alice, {
      setupSql: `create function pg_temp.fail() returns trigger language plpgsql as $f$ begin raise exception 'boom'; end $f$;
                 create trigger matrix_fail before update on public.user_tasks for each row execute function pg_temp.fail();
                 insert into public.user_tasks (user_id, title) values ('${world.bob}', 'bob''s own task')`,
    });
    expect(violation(outcome, undefined)).toMatch(/proves nothing about the rules: P0001 boom/);
  });
});

// Acting as someone on one connection, the way the Data API does: role and request.jwt.claims set
// for the current transaction only, so a rollback or commit returns to the database owner.
import type pg from 'pg';

export type Actor = { kind: 'anon' } | { kind: 'student'; id: string };

export const ANON: Actor = { kind: 'anon' };

export function student(id: string): Actor {
  return { kind: 'student', id };
}

/** Switches the current transaction to the actor. */
export async function becomeActor(client: pg.ClientBase, actor: Actor): Promise<void> {
  const [role, claims] =
    actor.kind === 'anon'
      ? ['anon', { role: 'anon' }]
      : ['authenticated', { sub: actor.id, role: 'authenticated', aud: 'authenticated' }];
  await client.query(`select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`, [
    role,
    JSON.stringify(claims),
  ]);
}

/** Back to the database owner, within the same transaction. */
export async function becomeOwner(client: pg.ClientBase): Promise<void> {
  await client.query(`reset role`);
  await client.query(`select set_config('request.jwt.claims', '', true)`);
}

/** Runs one statement as the actor in its own committed transaction (how the world is seeded). */
export async function actAs<T extends pg.QueryResultRow = pg.QueryResultRow>(
  client: pg.ClientBase,
  actor: Actor,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  await client.query('begin');
  try {
    await becomeActor(client, actor);
    const { rows } = await client.query<T>(sql, params);
    await client.query('commit');
    return rows;
  } catch (error) {
    await client.query('rollback');
    throw new Error(`${sql.split('\n')[0]} failed: ${(error as Error).message}`, { cause: error });
  }
}
